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
    const placed = [];
    document.querySelectorAll("input[data-seat]").forEach((inp) => {
      const deg = parseFloat(inp.value);
      if (isNaN(deg)) return;
      const a = (deg - 90) * Math.PI / 180, len = Math.max(t.r, 40) * 1.1;
      const cos = Math.cos(a), sin = Math.sin(a);
      const x = t.cx + len * cos, y = t.cy + len * sin;
      const l = document.createElementNS(NS, "line");
      l.setAttribute("x1", t.cx); l.setAttribute("y1", t.cy); l.setAttribute("x2", x); l.setAttribute("y2", y);
      l.setAttribute("class", "ray");
      svg.appendChild(l);
      // the name sits beyond the ray's end, on its outer side, and always inside the picture: a label
      // centred on the end was cut off at the top edge (Ann at 0 deg) and ran into its neighbours
      const tx = document.createElementNS(NS, "text");
      tx.setAttribute("text-anchor", cos > 0.35 ? "start" : cos < -0.35 ? "end" : "middle");
      tx.setAttribute("dominant-baseline", sin > 0.35 ? "hanging" : sin < -0.35 ? "auto" : "middle");
      tx.setAttribute("x", x + 4 * cos); tx.setAttribute("y", y + 4 * sin);
      tx.textContent = inp.dataset.seat;
      svg.appendChild(tx);
      place(tx, sin, placed);
    });
  }

  // Move a label into the picture, then away from the labels already placed (up or down, whichever
  // way its ray points), and into the picture again.
  function place(tx, sin, placed) {
    const pad = 2;
    const shift = (dx, dy) => {
      tx.setAttribute("x", parseFloat(tx.getAttribute("x")) + dx);
      tx.setAttribute("y", parseFloat(tx.getAttribute("y")) + dy);
    };
    const inside = () => {
      const b = tx.getBBox();
      shift(Math.max(pad - b.x, 0) + Math.min(W - pad - (b.x + b.width), 0),
            Math.max(pad - b.y, 0) + Math.min(H - pad - (b.y + b.height), 0));
    };
    inside();
    for (let tries = 0; tries < 8; tries++) {
      const b = tx.getBBox();
      const hit = placed.find((o) => b.x < o.x + o.width + pad && o.x < b.x + b.width + pad &&
                                     b.y < o.y + o.height + pad && o.y < b.y + b.height + pad);
      if (!hit) break;
      const down = sin >= 0;
      shift(0, down ? hit.y + hit.height + pad - b.y : hit.y - pad - (b.y + b.height));
      const after = tx.getBBox();
      if (after.y < 0 || after.y + after.height > H) {  // no room that way: the other way
        shift(0, down ? hit.y - pad - (after.y + after.height) : hit.y + hit.height + pad - after.y);
      }
    }
    inside();
    placed.push(tx.getBBox());
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
