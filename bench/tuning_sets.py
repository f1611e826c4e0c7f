"""The recordings the replay benches tune on, and the held-out seeds they must refuse.

One list for ``bench_imu_timing.py`` and ``bench_camera_onset.py`` (and any other replay bench), so that
moving the held-out line at the start of a session moves it everywhere. The folders are the caches that
``eval_judge.py`` (twin) and ``eval_unseen.py`` (altsim) fill; a recording not rendered on this machine is
simply left out.
"""

from __future__ import annotations

import re
from pathlib import Path

#: twin tuning recordings (eval_judge.py's caches): 52001-52008 to 72001-72008 (earlier
#: sessions' held-out sets, studied since) and the tune set's own 11-13, 9001-9008
TWIN = ([f"/tmp/tune-twin-520/seed{s}_n9_fps60" for s in range(52001, 52009)]
        + [f"/tmp/tune-twin-530/seed{s}_n9_fps60" for s in range(53001, 53009)]
        + [f"/tmp/tune-twin-540/seed{s}_n9_fps60" for s in range(54001, 54009)]
        + [f"/tmp/tune-twin-550/seed{s}_n9_fps60" for s in range(55001, 55009)]
        + [f"/tmp/tune-twin-560/seed{s}_n9_fps60" for s in range(56001, 56009)]
        + [f"/tmp/tune-twin-570/seed{s}_n9_fps60" for s in range(57001, 57009)]
        + [f"/tmp/tune-twin-580/seed{s}_n9_fps60" for s in range(58001, 58009)]
        + [f"/tmp/tune-twin-590/seed{s}_n9_fps60" for s in range(59001, 59009)]
        + [f"/tmp/tune-twin-600/seed{s}_n9_fps60" for s in range(60001, 60009)]
        + [f"/tmp/tune-twin-610/seed{s}_n9_fps60" for s in range(61001, 61009)]
        + [f"/tmp/tune-twin-620/seed{s}_n9_fps60" for s in range(62001, 62009)]
        + [f"/tmp/tune-twin-630/seed{s}_n9_fps60" for s in range(63001, 63009)]
        + [f"/tmp/tune-twin-640/seed{s}_n9_fps60" for s in range(64001, 64009)]
        + [f"/tmp/tune-twin-650/seed{s}_n9_fps60" for s in range(65001, 65009)]
        + [f"/tmp/tune-twin-660/seed{s}_n9_fps60" for s in range(66001, 66009)]
        + [f"/tmp/tune-twin-670/seed{s}_n9_fps60" for s in range(67001, 67009)]
        + [f"/tmp/tune-twin-680/seed{s}_n9_fps60" for s in range(68001, 68009)]
        + [f"/tmp/tune-twin-690/seed{s}_n9_fps60" for s in range(69001, 69009)]
        + [f"/tmp/tune-twin-700/seed{s}_n9_fps60" for s in range(70001, 70009)]
        + [f"/tmp/tune-twin-710/seed{s}_n9_fps60" for s in range(71001, 71009)]
        + [f"/tmp/tune-twin-720/seed{s}_n9_fps60" for s in range(72001, 72009)]
        + [f"/tmp/tune-twin-730/seed{s}_n9_fps60" for s in range(73001, 73009)]
        + [f"/tmp/tune-twin-740/seed{s}_n9_fps60" for s in range(74001, 74009)]
        + [f"/tmp/tune-twin-750/seed{s}_n9_fps60" for s in range(75001, 75009)]
        + [f"/tmp/tune-twin-760/seed{s}_n9_fps60" for s in range(76001, 76009)]
        + [f"/tmp/tune-twin-770/seed{s}_n9_fps60" for s in range(77001, 77009)]
        + [f"/tmp/tune-twin-780/seed{s}_n9_fps60" for s in range(78001, 78017)]
        + [f"/tmp/tune-twin-790/seed{s}_n9_fps60" for s in range(79001, 79017)]
        + [f"/tmp/tune-twin-800/seed{s}_n9_fps60" for s in range(80001, 80017)]
        + [f"/tmp/tune-twin-810/seed{s}_n9_fps60" for s in range(81001, 81017)]
        + [f"/tmp/tune-twin-820/seed{s}_n9_fps60" for s in range(82001, 82017)]
        + [f"/tmp/tune-twin-830/seed{s}_n9_fps60" for s in range(83001, 83017)]
        + [f"/tmp/tune-twin-840/seed{s}_n9_fps60" for s in range(84001, 84017)]
        + [f"/tmp/tune-twin-850/seed{s}_n9_fps60" for s in range(85001, 85017)]
        + [f"/tmp/tune-twin-860/seed{s}_n9_fps60" for s in range(86001, 86017)]
        + [f"/tmp/tune-twin-870/seed{s}_n9_fps60" for s in range(87001, 87017)]
        + [f"/tmp/tune-twin-880/seed{s}_n9_fps60" for s in range(88001, 88017)]
        + [f"/tmp/tune-twin-890/seed{s}_n9_fps60" for s in range(89001, 89017)]
        + [f"/tmp/tune-twin-900/seed{s}_n9_fps60" for s in range(90001, 90017)]
        + [f"/tmp/tune-twin-910/seed{s}_n9_fps60" for s in range(91001, 91017)]
        + [f"/tmp/tune-twin-920/seed{s}_n9_fps60" for s in range(92001, 92017)]
        + [f"/tmp/tune-twin-930/seed{s}_n9_fps60" for s in range(93001, 93017)]
        + [f"/tmp/tune-twin-940/seed{s}_n9_fps60" for s in range(94001, 94017)]
        + [f"/tmp/tune-twin-950/seed{s}_n9_fps60" for s in range(95001, 95017)]
        + [f"/tmp/tune-twin-960/seed{s}_n9_fps60" for s in range(96001, 96017)]
        + [f"/tmp/tune-twin-970/seed{s}_n9_fps60" for s in range(97001, 97017)]
        + [f"/tmp/tune-twin-980/seed{s}_n9_fps60" for s in range(98001, 98017)]
        + [f"/tmp/tune-twin-990/seed{s}_n9_fps60" for s in range(99001, 99017)]
        + [f"/tmp/tune-twin-1000/seed{s}_n9_fps60" for s in range(100001, 100017)]
        + [f"/tmp/tune-twin-1010/seed{s}_n9_fps60" for s in range(101001, 101017)]
        + [f"/tmp/tune-twin-1020/seed{s}_n9_fps60" for s in range(102001, 102017)]
        + [f"/tmp/sevivon-eval/seed{s}_n9_fps60" for s in (11, 12, 13, *range(9001, 9009))])
#: altsim tuning recordings (700000-700099 and the earlier held-out sets 760000+ to 1740000+ are tuning seeds)
ALT_GLOBS = ("/tmp/tune-alt-760/rec_*", "/tmp/tune-alt-780/rec_*", "/tmp/tune-alt-800/rec_*", "/tmp/tune-alt-820/rec_*", "/tmp/tune-alt-840/rec_*",
             "/tmp/tune-alt-860/rec_*", "/tmp/tune-alt-880/rec_*", "/tmp/tune-alt-900/rec_*",
             "/tmp/tune-alt-920/rec_*", "/tmp/tune-alt-940/rec_*", "/tmp/tune-alt-960/rec_*", "/tmp/tune-alt-980/rec_*", "/tmp/tune-alt-1000/rec_*", "/tmp/tune-alt-1020/rec_*", "/tmp/tune-alt-1040/rec_*", "/tmp/tune-alt-1060/rec_*", "/tmp/tune-alt-1080/rec_*", "/tmp/tune-alt-1100/rec_*", "/tmp/tune-alt-1120/rec_*", "/tmp/tune-alt-1140/rec_*", "/tmp/tune-alt-1160/rec_*", "/tmp/tune-alt-1180/rec_*", "/tmp/tune-alt-1200/rec_*", "/tmp/tune-alt-1220/rec_*", "/tmp/tune-alt-1240/rec_*", "/tmp/tune-alt-1260/rec_*", "/tmp/tune-alt-1280/rec_*", "/tmp/tune-alt-1300/rec_*", "/tmp/tune-alt-1320/rec_*", "/tmp/tune-alt-1340/rec_*", "/tmp/tune-alt-1360/rec_*", "/tmp/tune-alt-1380/rec_*", "/tmp/tune-alt-1400/rec_*", "/tmp/tune-alt-1420/rec_*", "/tmp/tune-alt-1440/rec_*", "/tmp/tune-alt-1460/rec_*", "/tmp/tune-alt-1480/rec_*", "/tmp/tune-alt-1500/rec_*", "/tmp/tune-alt-1520/rec_*", "/tmp/tune-alt-1540/rec_*", "/tmp/tune-alt-1560/rec_*", "/tmp/tune-alt-1580/rec_*", "/tmp/tune-alt-1600/rec_*", "/tmp/tune-alt-1620/rec_*", "/tmp/tune-alt-1640/rec_*", "/tmp/tune-alt-1660/rec_*", "/tmp/tune-alt-1680/rec_*", "/tmp/tune-alt-1700/rec_*", "/tmp/tune-alt-1720/rec_*", "/tmp/tune-alt-1740/rec_*",
             "/tmp/altsim_eval/rec_*")
#: the held-out seeds (fixed at the end of the forty-third session, after its set): twin recordings from
#: 103000 on, altsim from 1760000 on
HELDOUT_TWIN, HELDOUT_ALT = 103000, 1760000


def tuning_recordings(needs: str = "truth.json") -> list[Path]:
    """Every tuning recording on this machine that has the file ``needs`` (``imu.csv`` for the IMU benches)."""
    recs = [Path(r) for r in TWIN if (Path(r) / needs).is_file()]
    for pattern in ALT_GLOBS:
        base = Path(pattern).parent
        recs += sorted(p for p in base.glob(Path(pattern).name) if (p / needs).is_file())
    return recs


def is_heldout(rec: Path) -> bool:
    """True for a recording of the held-out set (by folder or by its seed in the name)."""
    if "heldout" in str(rec):
        return True
    m = re.search(r"(?:seed|rec_)(\d+)", rec.name)
    if m is None:
        return False
    seed = int(m.group(1))
    return seed >= HELDOUT_ALT if rec.name.startswith("rec_") else seed >= HELDOUT_TWIN


#: kinds whose stable time the replay benches do not score (a touch or a placed dreidel ends it otherwise)
UNSCORED = ("no_release", "hand_touch")


def context_path(contexts: Path, rec: Path) -> Path:
    """Where a replay bench caches what the judge saw of ``rec`` (one JSON file per recording)."""
    return contexts / f"{rec.parent.name}__{rec.name}.json"
