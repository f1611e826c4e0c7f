"""Fakes for the table session tests: a camera that can fail, a judge that says what it is told."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from controller.clock import FakeClock
from controller.config import Config, parse_config
from controller.devices import CameraSlot, ImuSlot
from controller.eventlog import EventLog
from controller.rules.letters import Letter
from controller.table_session import JudgeSetup, TableSession
from hardware.camera import CameraError, CameraSource, Frame
from hardware.imu import ImuBatch
from web.sse import SseBroker


class FakeCamera(CameraSource):
    """Grey frames at the clock's time; ``broken`` makes reads (and opens) fail like a pulled cable."""

    fps = 30.0
    size = (64, 48)
    name = "fake"

    def __init__(self, clock: FakeClock, world: FakeWorld) -> None:
        self.clock = clock
        self.world = world
        self.index = 0

    def open(self) -> None:
        if self.world.camera_broken:
            raise CameraError("unplugged")

    def close(self) -> None:
        pass

    def read(self) -> Frame | None:
        if self.world.camera_broken:
            raise CameraError("cable pulled")
        self.index += 1
        return Frame(self.index, self.clock.monotonic(), np.full((48, 64, 3), 90, np.uint8))


@dataclass
class Verdict:
    valid: bool
    letter: Letter | None
    reasons: list[str] = field(default_factory=list)
    stable_s: float | None = 4.0
    confidence: float = 0.99
    needs_judge: bool = False
    spin_id: str | None = None
    evidence: Any = None
    tip_bearing_deg: float | None = None
    release_t: float | None = None
    notes: list[str] = field(default_factory=list)
    close_call: bool = False


@dataclass
class Phase:
    phase: str


@dataclass
class Truth:
    valid: bool
    letter: Letter
    reasons: list[str]
    rest_t: float
    tip_angle_deg: float = 90.0  # the twin's convention: counter-clockwise from +x; up is 90


class FakeWorld:
    """Stands in for the digital twin: launches queue the verdict the judge will give."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.camera_broken = False
        self.busy = False
        self.truths: list[Truth] = []
        self.launches = 0
        self.next_verdicts: list[Verdict] = []
        self.pending: list[Verdict] = []
        #: the judge misses the next spins (no verdict at all)
        self.judge_blind = False

    def launch(self, kind: Any = None) -> None:
        self.launches += 1
        v = self.next_verdicts.pop(0) if self.next_verdicts else Verdict(True, Letter.NUN)
        self.truths.append(Truth(v.valid, v.letter or Letter.NUN, v.reasons, self.clock.monotonic() + 1.0))
        if not self.judge_blind:
            self.pending.append(v)


class FakeJudge:
    """Reports the verdict of each launched spin on the next frame."""

    def __init__(self, world: FakeWorld, setup: JudgeSetup) -> None:
        self.world = world
        self.setup = setup

    def feed_frame(self, frame: Frame) -> list[Any]:
        if self.world.pending:
            return [Phase("spinning"), Phase("at_rest"), self.world.pending.pop(0)]
        return []

    def feed_imu(self, batch: ImuBatch) -> list[Any]:
        return []

    def camera_failed(self, t: float) -> list[Any]:
        return [Phase("ready")]


class FakeLauncher:
    def __init__(self, world: FakeWorld) -> None:
        self.world = world
        self.launches = 0

    @property
    def busy(self) -> bool:
        return False

    def launch(self) -> str | None:
        self.launches += 1
        self.world.launch()
        return None


def make_session(tmp: Path, clock: FakeClock, toml: str = "", sim: bool = True,
                 world: FakeWorld | None = None, players: str = '"Ann", "Ben", "Cy"',
                 stack: int = 3) -> tuple[TableSession, FakeWorld]:
    extra_table = ""
    if toml.startswith("[table]\n"):  # merge the caller's [table] keys into ours
        rest = toml[len("[table]\n"):]
        cut = rest.find("\n[")
        extra_table, toml = (rest, "") if cut < 0 else (rest[: cut + 1], rest[cut + 1 :])
    config: Config = parse_config(
        f"[table]\nplayers = [{players}]\nstack = {stack}\n" + extra_table + '[sim]\npause_s = 1\njudge_delay_s = 2\n'
        "new_table_after_s = 0\n" + toml, "test.toml")
    world = world or FakeWorld(clock)
    tmp.mkdir(parents=True, exist_ok=True)
    log = EventLog(tmp / "events.sqlite", clock)
    session = TableSession(
        config, log, clock, data_dir=tmp,
        camera=CameraSlot(lambda: FakeCamera(clock, world), clock, retry_s=2.0),
        imu=ImuSlot(None, clock),
        judge_builder=lambda setup: FakeJudge(world, setup),
        broker=SseBroker(),
        launcher=FakeLauncher(world),
        world=world if sim else None,
    )
    return session, world


def run(session: TableSession, clock: FakeClock, steps: int, dt: float = 0.1) -> None:
    for _ in range(steps):
        clock.advance(dt)
        session.step()


class FakeImu:
    """An IMU whose ``healthy`` the test switches, like a sensor that drops off the bus."""

    chip = "fake"
    rate_hz = 833.0

    def __init__(self) -> None:
        self.healthy = True

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def read(self) -> ImuBatch:
        return ImuBatch(())
