"""Accuracy of the spin judge on simulated recordings, against the twin's truth.json.

    .venv/bin/python bench/eval_judge.py                 # the held-out set (seeds never tuned on)
    .venv/bin/python bench/eval_judge.py --set tune      # the tuning set
    .venv/bin/python bench/eval_judge.py --rec DIR ...   # any recordings that have truth.json

Recordings are made once with ``hardware.sim.recorder.record_session`` and cached (``--cache``). Each
recording is judged four ways: with and without the IMU, with and without its ``enroll/`` stills.
Every kind of spin of the twin is covered (valid, short, near 3 s, wobbled at once, upside down, left
the tray, hand, placed without a release) across random dreidel styles (Pe sets among them).

Goals (issue 4): letters right on >= 99.5% of valid spins; valid/invalid right on >= 99% of spins whose
true stable time is more than 0.15 s from 3 s; stable-time error median <= 0.05 s and p95 <= 0.15 s;
rest within 0.3 s of the truth; no missed or invented spins.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.analyze_cli import analyze_recording  # noqa: E402

KINDS = "valid,short,near_3s,wobble_at_once,upside_down,left_tray,hand_touch,hand_near,no_release"
#: seeds used while tuning the judge. 9001-9008 began as held-out seeds; by the end of the first
#: session their failures had been studied, so they count as tuning data now.
#: 52001-52008 were the second session's held-out set; its failures were studied after it was judged,
#: so they are tuning data now. 53001-53008 to 57001-57008, the third to seventh
#: sessions' held-out sets, likewise, and 58001-58008 to 72001-72008, the eighth's to nineteenth's first.
TUNE_SEEDS = (11, 12, 13, 9001, 9002, 9003, 9004, 9005, 9006, 9007, 9008,
              52001, 52002, 52003, 52004, 52005, 52006, 52007, 52008,
              53001, 53002, 53003, 53004, 53005, 53006, 53007, 53008,
              54001, 54002, 54003, 54004, 54005, 54006, 54007, 54008,
              55001, 55002, 55003, 55004, 55005, 55006, 55007, 55008,
              56001, 56002, 56003, 56004, 56005, 56006, 56007, 56008,
              57001, 57002, 57003, 57004, 57005, 57006, 57007, 57008,
              58001, 58002, 58003, 58004, 58005, 58006, 58007, 58008,
              59001, 59002, 59003, 59004, 59005, 59006, 59007, 59008,
              60001, 60002, 60003, 60004, 60005, 60006, 60007, 60008,
              61001, 61002, 61003, 61004, 61005, 61006, 61007, 61008,
              62001, 62002, 62003, 62004, 62005, 62006, 62007, 62008,
              63001, 63002, 63003, 63004, 63005, 63006, 63007, 63008,
              64001, 64002, 64003, 64004, 64005, 64006, 64007, 64008,
              65001, 65002, 65003, 65004, 65005, 65006, 65007, 65008,
              66001, 66002, 66003, 66004, 66005, 66006, 66007, 66008,
              67001, 67002, 67003, 67004, 67005, 67006, 67007, 67008,
              68001, 68002, 68003, 68004, 68005, 68006, 68007, 68008,
              69001, 69002, 69003, 69004, 69005, 69006, 69007, 69008,
              70001, 70002, 70003, 70004, 70005, 70006, 70007, 70008,
              71001, 71002, 71003, 71004, 71005, 71006, 71007, 71008,
              72001, 72002, 72003, 72004, 72005, 72006, 72007, 72008,
              73001, 73002, 73003, 73004, 73005, 73006, 73007, 73008,
              74001, 74002, 74003, 74004, 74005, 74006, 74007, 74008,
              75001, 75002, 75003, 75004, 75005, 75006, 75007, 75008,
              76001, 76002, 76003, 76004, 76005, 76006, 76007, 76008,
              77001, 77002, 77003, 77004, 77005, 77006, 77007, 77008,
              78001, 78002, 78003, 78004, 78005, 78006, 78007, 78008,
              78009, 78010, 78011, 78012, 78013, 78014, 78015, 78016,
              79001, 79002, 79003, 79004, 79005, 79006, 79007, 79008,
              79009, 79010, 79011, 79012, 79013, 79014, 79015, 79016,
              80001, 80002, 80003, 80004, 80005, 80006, 80007, 80008,
              80009, 80010, 80011, 80012, 80013, 80014, 80015, 80016,
              81001, 81002, 81003, 81004, 81005, 81006, 81007, 81008,
              81009, 81010, 81011, 81012, 81013, 81014, 81015, 81016,
              82001, 82002, 82003, 82004, 82005, 82006, 82007, 82008,
              82009, 82010, 82011, 82012, 82013, 82014, 82015, 82016,
              83001, 83002, 83003, 83004, 83005, 83006, 83007, 83008,
              83009, 83010, 83011, 83012, 83013, 83014, 83015, 83016,
              84001, 84002, 84003, 84004, 84005, 84006, 84007, 84008,
              84009, 84010, 84011, 84012, 84013, 84014, 84015, 84016,
              85001, 85002, 85003, 85004, 85005, 85006, 85007, 85008,
              85009, 85010, 85011, 85012, 85013, 85014, 85015, 85016,
              86001, 86002, 86003, 86004, 86005, 86006, 86007, 86008,
              86009, 86010, 86011, 86012, 86013, 86014, 86015, 86016,
              87001, 87002, 87003, 87004, 87005, 87006, 87007, 87008,
              87009, 87010, 87011, 87012, 87013, 87014, 87015, 87016,
              88001, 88002, 88003, 88004, 88005, 88006, 88007, 88008,
              88009, 88010, 88011, 88012, 88013, 88014, 88015, 88016,
              89001, 89002, 89003, 89004, 89005, 89006, 89007, 89008,
              89009, 89010, 89011, 89012, 89013, 89014, 89015, 89016,
              90001, 90002, 90003, 90004, 90005, 90006, 90007, 90008,
              90009, 90010, 90011, 90012, 90013, 90014, 90015, 90016,
              91001, 91002, 91003, 91004, 91005, 91006, 91007, 91008,
              91009, 91010, 91011, 91012, 91013, 91014, 91015, 91016,
              92001, 92002, 92003, 92004, 92005, 92006, 92007, 92008,
              92009, 92010, 92011, 92012, 92013, 92014, 92015, 92016,
              93001, 93002, 93003, 93004, 93005, 93006, 93007, 93008,
              93009, 93010, 93011, 93012, 93013, 93014, 93015, 93016,
              94001, 94002, 94003, 94004, 94005, 94006, 94007, 94008,
              94009, 94010, 94011, 94012, 94013, 94014, 94015, 94016,
              95001, 95002, 95003, 95004, 95005, 95006, 95007, 95008,
              95009, 95010, 95011, 95012, 95013, 95014, 95015, 95016,
              96001, 96002, 96003, 96004, 96005, 96006, 96007, 96008,
              96009, 96010, 96011, 96012, 96013, 96014, 96015, 96016,
              97001, 97002, 97003, 97004, 97005, 97006, 97007, 97008,
              97009, 97010, 97011, 97012, 97013, 97014, 97015, 97016,
              98001, 98002, 98003, 98004, 98005, 98006, 98007, 98008,
              98009, 98010, 98011, 98012, 98013, 98014, 98015, 98016,
              99001, 99002, 99003, 99004, 99005, 99006, 99007, 99008,
              99009, 99010, 99011, 99012, 99013, 99014, 99015, 99016,
              100001, 100002, 100003, 100004, 100005, 100006, 100007, 100008,
              100009, 100010, 100011, 100012, 100013, 100014, 100015, 100016,
              101001, 101002, 101003, 101004, 101005, 101006, 101007, 101008,
              101009, 101010, 101011, 101012, 101013, 101014, 101015, 101016,
              102001, 102002, 102003, 102004, 102005, 102006, 102007, 102008,
              102009, 102010, 102011, 102012, 102013, 102014, 102015, 102016)
#: held-out seeds, fixed at the end of the forty-third session after its set was judged (not rendered yet;
#: 16 recordings, twice
#: the earlier sets, so that one spin is a smaller share of a figure): nobody tuning the judge or
#: the recognizer renders, judges or opens them. They are judged once, for the closing table.
HELDOUT_SEEDS = (103001, 103002, 103003, 103004, 103005, 103006, 103007, 103008,
                 103009, 103010, 103011, 103012, 103013, 103014, 103015, 103016)
#: DESIGN.md: "a resting dreidel is about 40-150 px long" in the picture. The twin also draws smaller ones
#: (down to about 34 px, faces of 13-14 px); the letter figure is given for all valid spins and for these.
SPEC_MIN_LENGTH_PX = 40.0


def make_recording(cache: Path, seed: int, spins: int, fps: float) -> Path:
    """The cached recording for ``seed`` (made on first use)."""
    out = cache / f"seed{seed}_n{spins}_fps{int(fps)}"
    if (out / "truth.json").is_file():
        return out
    from hardware.sim.physics import parse_kinds
    from hardware.sim.recorder import record_session

    kinds = parse_kinds(KINDS)
    # rotate the kinds per seed so every kind lands in different places of a session
    k = seed % len(kinds)
    record_session(out, spins=spins, seed=seed, fps=fps, imu=True, enroll=True, kinds=kinds[k:] + kinds[:k])
    return out


@dataclass
class Tally:
    """Counts for one way of judging."""

    spins: int = 0
    missed: int = 0
    invented: int = 0
    valid_total: int = 0
    letters_right: int = 0
    letters_unread: int = 0
    letters_wrong: int = 0
    #: valid spins whose resting dreidel is at least DESIGN.md's 40 px long, and their letters read right
    spec_total: int = 0
    spec_right: int = 0
    clear_total: int = 0
    clear_right: int = 0
    stable_err: list[float] = field(default_factory=list)
    #: stable_err without the knocks (hand_touch), as it was scored until the eighteenth round
    plain_err: list[float] = field(default_factory=list)
    rest_err: list[float] = field(default_factory=list)
    needs_judge: int = 0
    #: clear spins (|s-3| > 0.15) called wrongly valid or invalid, and of those the ones the judge did not
    #: refer to a human (a close call, a letter unread...): what a table would have played wrong
    clear_wrong: int = 0
    clear_wrong_unreferred: int = 0
    mistakes: list[str] = field(default_factory=list)


def match(truth: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Pair each true spin with the verdict whose rest (or release) is nearest, within 2 s."""
    pairs: list[tuple[int, int]] = []
    used: set[int] = set()
    for i, tr in enumerate(truth):
        best, best_d = None, 2.0
        for j, v in enumerate(verdicts):
            if j in used:
                continue
            ref_t = v.get("rest_t") if v.get("rest_t") is not None else v.get("release_t")
            if ref_t is None:
                continue
            d = abs(ref_t - tr["rest_t"])
            if v.get("release_t") is not None and tr.get("release_t") is not None:
                d = min(d, abs(v["release_t"] - tr["release_t"]) + 0.5)
            if d < best_d:
                best, best_d = j, d
        if best is not None:
            used.add(best)
            pairs.append((i, best))
    missed = [i for i in range(len(truth)) if i not in {p[0] for p in pairs}]
    invented = [j for j in range(len(verdicts)) if j not in used]
    return pairs, missed, invented


def score(tally: Tally, name: str, truth: list[dict[str, Any]], verdicts: list[dict[str, Any]],
          needs: list[bool]) -> None:
    pairs, missed, invented = match(truth, verdicts)
    tally.spins += len(truth)
    tally.missed += len(missed)
    tally.invented += len(invented)
    for i in missed:
        tally.mistakes.append(f"{name}: missed spin {i} ({truth[i]['kind']}, rest {truth[i]['rest_t']:.2f})")
    for j in invented:
        tally.mistakes.append(f"{name}: invented spin at {verdicts[j]}")
    for i, j in pairs:
        tr, v = truth[i], verdicts[j]
        tally.needs_judge += int(needs[j])
        if tr["valid"]:
            tally.valid_total += 1
            in_spec = tr.get("length_px") is None or tr["length_px"] >= SPEC_MIN_LENGTH_PX
            tally.spec_total += int(in_spec)
            if v["letter"] == tr["letter"]:
                tally.letters_right += 1
                tally.spec_right += int(in_spec)
            else:
                if v["letter"] is None:
                    tally.letters_unread += 1
                else:
                    tally.letters_wrong += 1
                tally.mistakes.append(f"{name}: spin {i} letter {v['letter']} (truth {tr['letter']})")
        stable_true = tr.get("stable_s")
        if stable_true is None and tr.get("wobble_t") is not None:
            stable_true = tr["wobble_t"] - tr["release_t"]
        clear = tr["kind"] != "near_3s" if stable_true is None else abs(stable_true - 3.0) > 0.15
        if clear:
            tally.clear_total += 1
            if bool(v["valid"]) == bool(tr["valid"]):
                tally.clear_right += 1
            else:
                tally.clear_wrong += 1
                tally.clear_wrong_unreferred += int(not needs[j])
                tally.mistakes.append(
                    f"{name}: spin {i} ({tr['kind']}) valid={v['valid']} {v['reasons']} truth={tr['valid']} {tr['reasons']}"
                    f" stable {v['stable_s']} vs {stable_true}"
                )
        # a knock's stable time ends at the touch (its truth's wobble_t): scored since the nineteenth round,
        # once the touch was dated at the middle of the hand's cover (before, 0.15-0.25 s early)
        if stable_true is not None and v["stable_s"] is not None and tr["kind"] != "no_release":
            err = v["stable_s"] - stable_true
            tally.stable_err.append(err)
            if tr["kind"] != "hand_touch":
                tally.plain_err.append(err)
            if abs(err) > 0.15:
                tally.mistakes.append(
                    f"{name}: spin {i} ({tr['kind']}) stable {v['stable_s']:.3f} vs {stable_true:.3f}"
                    f" (release {v['release_t']} vs {tr['release_t']:.3f}, wobble {v['wobble_t']} vs {tr['wobble_t']})"
                )
        if v["rest_t"] is not None and tr.get("in_picture", True):
            tally.rest_err.append(v["rest_t"] - tr["rest_t"])
            if abs(v["rest_t"] - tr["rest_t"]) > 0.3:
                tally.mistakes.append(f"{name}: spin {i} ({tr['kind']}) rest {v['rest_t']} vs {tr['rest_t']:.3f}")


def judge_one(
    args: tuple[str, bool, bool, bool],
) -> tuple[str, bool, bool, list[dict[str, Any]], list[bool], float, int]:
    rec, use_imu, use_enroll, letters = args
    import cv2

    cv2.setNumThreads(1)
    enroll = None if use_enroll else Path(rec) / "__no_enroll__"
    t0 = time.process_time()
    if enroll is not None:
        enroll.mkdir(exist_ok=True)
    verdicts, facts = analyze_recording(rec, use_imu=use_imu, enroll_dir=enroll, use_recognizer=letters)
    cpu = time.process_time() - t0
    return rec, use_imu, use_enroll, [v.to_json() for v in verdicts], [v.needs_judge for v in verdicts], cpu, facts["frames"]


def fmt_pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:6.2f}% ({a}/{b})" if b else "   n/a"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("heldout", "tune"), default="heldout")
    ap.add_argument("--seeds", type=str, default=None, help="comma-separated seeds instead of the set's")
    ap.add_argument("--spins", type=int, default=9)
    ap.add_argument("--fps", type=float, default=60.0)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/sevivon-eval"))
    ap.add_argument("--rec", type=Path, nargs="*", default=None, help="judge these recordings instead")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--modes", type=str, default="imu+enroll,imu,camera+enroll,camera")
    ap.add_argument("--no-letters", action="store_true", help="skip letter reading (timing only)")
    ap.add_argument("--verbose", action="store_true", help="list every mistake")
    ap.add_argument("--dump", type=Path, default=None, help="write every matched (truth, verdict) pair to this JSON file")
    args = ap.parse_args()
    if args.rec:
        recs = [str(r) for r in args.rec]
    else:
        seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else list(
            HELDOUT_SEEDS if args.set == "heldout" else TUNE_SEEDS
        )
        args.cache.mkdir(parents=True, exist_ok=True)
        with ProcessPoolExecutor(args.jobs) as ex:
            recs = [str(p) for p in ex.map(make_recording, [args.cache] * len(seeds), seeds,
                                           [args.spins] * len(seeds), [args.fps] * len(seeds))]
    modes = {
        "imu+enroll": (True, True),
        "imu": (True, False),
        "camera+enroll": (False, True),
        "camera": (False, False),
    }
    wanted = [m.strip() for m in args.modes.split(",")]
    jobs = [(r, *modes[m], not args.no_letters) for r in recs for m in wanted]
    tallies = {m: Tally() for m in wanted}
    cpu_total, frames_total, video_s = 0.0, 0, 0.0
    dump: list[dict[str, Any]] = []
    with ProcessPoolExecutor(args.jobs) as ex:
        for rec, use_imu, use_enroll, verdicts, needs, cpu, frames in ex.map(judge_one, jobs):
            mode = next(m for m in wanted if modes[m] == (use_imu, use_enroll))
            truth = json.loads((Path(rec) / "truth.json").read_text())
            score(tallies[mode], f"{Path(rec).name}/{mode}", truth, verdicts, needs)
            if args.dump is not None:
                pairs, _, _ = match(truth, verdicts)
                dump += [{"rec": Path(rec).name, "mode": mode, "spin": i, "truth": truth[i], "got": verdicts[j],
                          "needs_judge": needs[j]} for i, j in pairs]
            cpu_total += cpu
            frames_total += frames
            fps = json.loads((Path(rec) / "meta.json").read_text())["fps"]
            video_s += frames / fps
    print(f"recordings: {len(recs)}  ({', '.join(Path(r).name for r in recs)})")
    print(f"analyze CPU: {cpu_total:.1f} s for {video_s:.1f} s of video judged -> {video_s / max(cpu_total, 1e-9):.1f}x real time")
    head = f"{'mode':<14} {'spins':>5} {'missed':>6} {'invent':>6} {'letters right (valid spins)':>30} {'wrong':>5} {'right, >=40 px':>16} {'valid/invalid right (|s-3|>0.15)':>34} {'stable err med':>14} {'p95':>6} {'rest<=0.3s':>20} {'judge?':>6}"
    print(head)
    print("-" * len(head))
    for m in wanted:
        t = tallies[m]
        se = np.abs(np.array(t.stable_err)) if t.stable_err else np.array([np.nan])
        re_ = np.abs(np.array(t.rest_err)) if t.rest_err else np.array([np.nan])
        print(
            f"{m:<14} {t.spins:>5} {t.missed:>6} {t.invented:>6} {fmt_pct(t.letters_right, t.valid_total):>30} "
            f"{t.letters_wrong:>5} {fmt_pct(t.spec_right, t.spec_total):>16} "
            f"{fmt_pct(t.clear_right, t.clear_total):>34} {np.median(se):>13.3f}s {np.percentile(se, 95):>5.3f}s "
            f"{fmt_pct(int((re_ <= 0.3).sum()), int(re_.size)):>20} {t.needs_judge:>6}"
        )
    for m in wanted:
        t = tallies[m]
        print(f"{m}: valid/invalid wrong on clear spins: {t.clear_wrong}, of which not referred to a judge: "
              f"{t.clear_wrong_unreferred}")
    for m in wanted:
        t = tallies[m]
        knocks = len(t.stable_err) - len(t.plain_err)
        if t.plain_err and knocks:
            plain = np.abs(np.array(t.plain_err))
            print(f"{m}: stable err without knocks ({knocks} of them; scored so until the eighteenth round): "
                  f"median {np.median(plain):.3f} s, p95 {np.percentile(plain, 95):.3f} s")
    if args.dump is not None:
        args.dump.write_text(json.dumps(dump, indent=1))
    if args.verbose:
        for m in wanted:
            for line in tallies[m].mistakes:
                print("  " + line)
    else:
        n = sum(len(t.mistakes) for t in tallies.values())
        print(f"({n} individual mistakes; --verbose lists them)")


if __name__ == "__main__":
    main()
