// The judge console: live status by Server-Sent Events; local times in the log.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  document.querySelectorAll("time[data-t]").forEach((t) => {
    const d = new Date(parseFloat(t.dataset.t) * 1000);
    t.textContent = d.toLocaleTimeString();
    t.title = d.toISOString();
  });
  const live = $("live");
  if (!live || !window.EventSource) return;
  const shownAwaiting = live.dataset.awaiting;
  const es = new EventSource("/api/events");
  es.addEventListener("state", (ev) => {
    const s = JSON.parse(ev.data);
    live.dataset.version = s.version;
    const ph = $("j-phase");
    ph.className = "pill phase-" + s.phase;
    ph.textContent = s.phase.replace("_", " ");
    $("j-message").textContent = s.message;
    $("j-pot").textContent = s.pot;
    $("j-ante").textContent = s.ante;
    $("j-clock").textContent = s.clock.status;
    $("j-spins").textContent = s.spins;
    const b = $("j-banner");
    b.hidden = !s.banner;
    b.textContent = s.banner || "";
    const awaiting = s.awaiting_judge ? s.awaiting_judge.spin_id : "";
    const typing = document.activeElement && ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
    if (awaiting !== shownAwaiting) {
      if (awaiting && !typing) { window.location.reload(); return; }
      $("j-stale").hidden = false;
    }
  });
  const pic = $("live-picture");
  if (pic) setInterval(() => { pic.src = "/judge/camera.jpg?t=" + Date.now(); }, 2000);
})();
