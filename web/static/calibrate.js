// Calibration on the live picture: click the tray centre, then its rim; then click toward each seat.
"use strict";
(function () {
  const box = document.getElementById("calib");
  if (!box) return;
  const img = document.getElementById("calib-img");
  const svg = document.getElementById("calib-svg");
  const W = parseFloat(box.dataset.w), H = parseFloat(box.dataset.h);
  const f = (id) => document.getElementById(id);
  let clicks = 0;
  const NS = "http://www.w3.org/2000/svg";

  function tray() {
    const cx = parseFloat(f("tray_cx").value), cy = parseFloat(f("tray_cy").value), r = parseFloat(f("tray_r").value);
    return isNaN(cx) || isNaN(cy) ? null : { cx, cy, r: isNaN(r) ? 0 : r };
  }

  function draw() {
    svg.textContent = "";
    const t = tray();
    if (!t) return;
    const c = document.createElementNS(NS, "circle");
    c.setAttribute("cx", t.cx); c.setAttribute("cy", t.cy); c.setAttribute("r", Math.max(t.r, 3));
    c.setAttribute("class", "tray");
    svg.appendChild(c);
    document.querySelectorAll("input[data-seat]").forEach((inp) => {
      const deg = parseFloat(inp.value);
      if (isNaN(deg)) return;
      const a = (deg - 90) * Math.PI / 180, len = Math.max(t.r, 40) * 1.1;
      const x = t.cx + len * Math.cos(a), y = t.cy + len * Math.sin(a);
      const l = document.createElementNS(NS, "line");
      l.setAttribute("x1", t.cx); l.setAttribute("y1", t.cy); l.setAttribute("x2", x); l.setAttribute("y2", y);
      l.setAttribute("class", "ray");
      svg.appendChild(l);
      const tx = document.createElementNS(NS, "text");
      tx.setAttribute("x", x); tx.setAttribute("y", y); tx.textContent = inp.dataset.seat;
      svg.appendChild(tx);
    });
  }

  box.addEventListener("click", (ev) => {
    const r = img.getBoundingClientRect();
    const x = ((ev.clientX - r.left) / r.width) * W, y = ((ev.clientY - r.top) / r.height) * H;
    const t = tray();
    if (clicks === 0 || !t) { f("tray_cx").value = x.toFixed(1); f("tray_cy").value = y.toFixed(1); clicks = 1; }
    else if (clicks === 1) { f("tray_r").value = Math.hypot(x - t.cx, y - t.cy).toFixed(1); clicks = 2; }
    else {
      const name = f("seat-pick").value;
      const deg = (Math.atan2(y - t.cy, x - t.cx) * 180 / Math.PI + 90 + 360) % 360;
      document.querySelector('input[data-seat="' + CSS.escape(name) + '"]').value = deg.toFixed(1);
      const sel = f("seat-pick");
      sel.selectedIndex = (sel.selectedIndex + 1) % sel.options.length;
    }
    draw();
  });
  document.querySelectorAll("#calib-form input").forEach((i) => i.addEventListener("input", draw));
  draw();
})();
