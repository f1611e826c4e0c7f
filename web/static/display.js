// The live table display: renders /api/state and follows /api/events (Server-Sent Events).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let state = JSON.parse($("initial-state").textContent);
  let receivedAt = performance.now();
  let updates = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmtTime(s) {
    if (s === null || s === undefined) return "";
    s = Math.max(0, Math.ceil(s));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function seatNote(p, s) {
    if (s.winner === p.name) return "winner";
    if (p.status === "out") return "out · place " + p.place;
    if (p.status === "away") return "away";
    if (p.spin_off_letter) return "spin-off: " + p.spin_off_letter;
    if (p.spun_by === "launcher") return "launcher spins";
    if (p.spun_by) return p.spun_by + " spins";
    return "";
  }

  function renderSeats(s) {
    const box = $("seats");
    box.textContent = "";
    const n = s.seats.length;
    const narrow = window.innerWidth <= 640;
    s.seats.forEach((p, i) => {
      const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
      const rx = narrow ? 40 : 41, ry = narrow ? 42 : 39;
      const d = el("div", "seat " + p.status + (p.current ? " current" : "") + (s.winner === p.name ? " winner" : ""));
      d.style.left = 50 + rx * Math.cos(a) + "%";
      d.style.top = 50 + ry * Math.sin(a) + "%";
      d.appendChild(el("div", "name", p.name));
      d.appendChild(el("div", "stack", String(p.stack)));
      const note = seatNote(p, s);
      d.appendChild(el("div", "note", note || "\u00a0"));
      d.title = p.name + ": " + p.stack + (note ? " (" + note + ")" : "");
      box.appendChild(d);
    });
  }

  function effect(ls) {
    const ch = ls.stack_change;
    if (ls.letter === "gimel" || ls.letter === "hey") return "takes " + ch;
    if (ls.letter === "nun") return "nothing";
    return "puts in " + -ch;
  }

  function renderLast(s) {
    const L = $("letter"), line = $("lastline");
    const ls = s.last_spin;
    const recent = (s.recent || [])[0];
    line.textContent = "";
    const a = s.awaiting_judge;
    if (a && s.phase === "judge_needed") {
      L.className = "letter " + (a.letter || "invalid");
      L.textContent = a.letter ? a.hebrew + "?" : "?";
      line.appendChild(el("b", "", a.player || "Opening spin"));
      line.appendChild(document.createTextNode(": a judge checks this spin"));
      if (a.stable_s !== null && a.stable_s !== undefined)
        line.appendChild(document.createTextNode(" (stable " + a.stable_s.toFixed(2) + " s)"));
      return;
    }
    if (recent && recent.event === "invalid_spin" && (!ls || recent.spin_id !== ls.spin_id) && s.phase !== "finished") {
      L.className = "letter invalid";
      L.textContent = "re-spin";
      line.appendChild(el("b", "", recent.player || ""));
      line.appendChild(document.createTextNode(": " + (recent.reason_text || recent.reason || "invalid spin")));
      if ((recent.actor || "").startsWith("judge:"))
        line.appendChild(document.createTextNode(" (the judge's call)"));
      else if (recent.stable_s !== null && recent.stable_s !== undefined)
        line.appendChild(document.createTextNode(" (stable " + recent.stable_s.toFixed(2) + " s)"));
      return;
    }
    if (!ls) { L.className = "letter"; L.textContent = ""; line.textContent = s.stage === "choosing_first" ? "Opening spin" : "No spin yet"; return; }
    L.className = "letter " + ls.letter;
    L.textContent = ls.hebrew;
    line.appendChild(el("b", "", ls.player));
    line.appendChild(document.createTextNode(" " + ls.letter + ": " + effect(ls)));
    line.appendChild(el("br"));
    const bits = [];
    if (ls.stable_s !== null && ls.stable_s !== undefined) bits.push("stable " + ls.stable_s.toFixed(2) + " s");
    if (ls.spun_by) bits.push("spun by " + ls.spun_by + " for " + ls.player);
    if (ls.all_ante) bits.push("all-ante");
    if (ls.knocked_out && ls.knocked_out.length) bits.push(ls.knocked_out.join(", ") + " out");
    line.appendChild(document.createTextNode(bits.join(" · ")));
  }

  function renderStandings(s) {
    const ol = $("standings");
    ol.textContent = "";
    s.standings.forEach((p, i) => {
      const li = el("li", p.status);
      li.appendChild(el("span", "pl", p.place ? "#" + p.place : String(i + 1)));
      li.appendChild(el("span", "nm", p.name + (p.status === "away" ? " (away)" : "")));
      li.appendChild(el("span", "st", p.status === "out" ? "out" : String(p.stack)));
      ol.appendChild(li);
    });
  }

  function renderClock() {
    const s = state, c = s.clock, r = $("raise");
    let text = "";
    if (s.pending_raise) text = "→ " + s.ante_after_turn + " next turn";
    else if (c.status === "running" && c.remaining_s !== null) {
      const left = c.remaining_s - ((performance.now() - receivedAt) / 1000) * (c.speed || 1);
      text = "+" + c.step + " in " + fmtTime(left);
    } else if (c.status === "paused") text = "clock paused";
    if (r.textContent !== text) r.textContent = text;
  }

  function render(s) {
    state = s;
    receivedAt = performance.now();
    document.body.dataset.version = s.version;
    document.title = "Sevivon — " + s.table;
    const b = $("banner");
    b.hidden = !s.banner;
    b.textContent = s.banner || "";
    $("ante").textContent = s.ante;
    $("pot").textContent = s.pot;
    $("spins").textContent = s.spins + (s.spins === 1 ? " valid spin" : " valid spins");  // a re-spin does not count
    const ph = $("phase");
    ph.className = "phase phase-" + s.phase;
    ph.textContent = s.phase.replace("_", " ");
    $("message").textContent = s.message;
    renderSeats(s);
    renderLast(s);
    renderStandings(s);
    renderClock();
  }

  render(state);
  setInterval(renderClock, 250);
  window.addEventListener("resize", () => renderSeats(state));

  if (window.EventSource) {
    const es = new EventSource("/api/events");
    es.addEventListener("state", (ev) => {
      updates += 1;
      document.body.dataset.updates = updates;
      render(JSON.parse(ev.data));
    });
    es.onopen = () => $("link").classList.add("up");
    es.onerror = () => $("link").classList.remove("up");
  }
})();
