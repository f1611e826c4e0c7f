"""``sevivon run``: the table service. Judge spins, play the rules, serve the display and the judge console.

Without a configuration it runs the demo: a simulated 10-player table on the digital twin that plays
itself (judges can step in from the console). With ``--config table.toml`` it runs the real table
the file describes. It resumes from the event log in ``--data`` after a crash or a power cut.
"""

from __future__ import annotations

import getpass
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import click

from controller.clock import Clock, PacedClock, ScaledClock, SystemClock
from controller.config import Config, ConfigError, load_config
from controller.devices import CameraSlot, ImuSlot
from controller.eventlog import EventLog, EventLogError
from controller.speech import Speaker
from controller.table_ports import JudgePort
from controller.table_session import JudgeSetup, TableSession
from web.auth import PasswordError, PasswordStore, load_secret_key

PASSWORD_ENV = "SEVIVON_JUDGE_PASSWORD"


def default_data_dir(simulated: bool) -> Path:
    """``$SEVIVON_DATA``, else ``~/.local/share/sevivon`` (``.../sim`` for the simulated table)."""
    env = os.environ.get("SEVIVON_DATA")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "sevivon"
    return base / "sim" if simulated else base


class SimLauncher:
    """The digital twin's launcher: a press produces a real simulated spin (``SimWorld.launch``).

    A machine releases cleanly: no hand reaches into the tray and it never fails to let go, but it
    still makes an occasional short or wobbly spin (a worn chuck, a bad grip on the handle).
    """

    KINDS = {"valid": 0.75, "near_3s": 0.1, "short": 0.1, "wobble_at_once": 0.05}

    def __init__(self, world: Any, seed: int = 0) -> None:
        import random

        self.world = world
        self._rng = random.Random(seed)

    @property
    def busy(self) -> bool:
        """A spin is still in motion."""
        return bool(self.world.busy)

    def launch(self) -> str | None:
        """Spin now."""
        if self.world.busy:
            return "a spin is still in motion"
        from hardware.sim.physics import SpinKind

        kind = self._rng.choices(list(self.KINDS), weights=list(self.KINDS.values()))[0]
        # by_launcher: the twin's chuck spins it, so no hand is drawn reaching into the tray.
        self.world.launch(SpinKind(kind), by_launcher=True)
        return None


def judge_builder(clock: Clock, on_fault: Any = None, lores_width: int = 320,
                  rocking_level_dps: float = 0.2) -> Any:
    """Builds ``controller.judge.SpinJudge`` with the letter recognizer (taught when stills exist).

    Without a working recognizer the judge still times and checks every spin, and each valid spin's
    letter goes to a judge (``on_fault`` hears why, once). ``rocking_level_dps`` is the tray's IMU
    calibration (the config's ``[imu] rocking_level_dps``, measured by ``sevivon imu-level``).
    """
    generic: list[Any] = []

    def recognizer(enroll_dir: Path | None) -> Any:
        if not generic:
            try:
                from vision.recognizer import LetterRecognizer

                generic.append(LetterRecognizer.default())
            except Exception as e:  # noqa: BLE001 - no letter reading: every valid spin goes to a judge
                generic.append(None)
                if on_fault is not None:
                    on_fault(f"letter recognizer not available ({e}); a judge reads every letter")
        base = generic[0]
        if base is None:
            return None
        if enroll_dir is None:
            return base
        import cv2

        from controller.rules.letters import Letter

        samples, names, skipped = [], [], []
        for path in sorted(enroll_dir.glob("*.png")):
            image = cv2.imread(str(path))
            try:
                letter = Letter.parse(path.stem.split("_")[0])
            except ValueError as e:
                skipped.append(f"{path.name}: named <letter>_<n>.png? ({e})")
                continue
            if image is None:
                skipped.append(f"{path.name}: not a readable picture")
                continue
            samples.append((letter, image))
            names.append(path.name)
        taught, unusable = base.with_usable_enrollment(samples, names) if samples else (base, [])
        skipped += unusable
        if skipped and on_fault is not None:
            # one bad taught still must not cost the others, nor the judge: it is named so it can be retaken
            on_fault("taught stills left out: " + "; ".join(skipped))
        return taught

    def build(setup: JudgeSetup) -> JudgePort:
        # a failure here degrades the table to manual entry
        from controller.judge import JudgeSettings, SpinJudge

        tray = None
        if setup.tray is not None and setup.frame_size is not None:
            tray = tray_region(setup.tray, setup.frame_size, lores_width)
        return SpinJudge(recognizer(setup.enroll_dir), clock=clock, imu=setup.imu, tray=tray,
                         keep_evidence=True, lores_width=lores_width,
                         settings=JudgeSettings(rocking_level_dps=rocking_level_dps))

    return build


def tray_region(circle: tuple[float, float, float], frame_size: tuple[int, int], lores_width: int) -> Any:
    """A calibrated tray circle (full-resolution pixels) as the judge's lores tray outline."""
    import numpy as np

    from vision.background import TrayRegion

    w, h = frame_size
    scale = lores_width / w
    cx, cy, r = (v * scale for v in circle)
    a = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    points = np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=1)
    return TrayRegion.from_polygon(points, (lores_width, int(round(h * scale))))


def lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent), or None."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return str(s.getsockname()[0])
    except OSError:
        return None


def ask_password() -> str:
    """Ask twice on the terminal."""
    while True:
        first = getpass.getpass("Judge password (at least 8 characters): ")
        if first != getpass.getpass("Again: "):
            click.echo("The two did not match; try again.", err=True)
            continue
        return first


def ensure_password(store: PasswordStore, set_password: bool) -> None:
    """Set the judge password at first start: ``--set-password``, the environment or a prompt."""
    if set_password:
        if not sys.stdin.isatty():
            raise click.UsageError("--set-password needs a terminal to type the password on")
        store.set(ask_password())
        click.echo(f"Judge password saved (hashed) in {store.path}")
        return
    if store.is_set():
        return
    env = os.environ.get(PASSWORD_ENV)
    if env:
        store.set(env)
        click.echo(f"Judge password set from {PASSWORD_ENV} (stored hashed in {store.path})")
    elif sys.stdin.isatty():
        click.echo("No judge password yet. Set one now (the judge console stays locked without it).")
        store.set(ask_password())
    else:
        click.echo(f"No judge password is set: the judge console is locked. Set one with "
                   f"`sevivon run --set-password` or {PASSWORD_ENV}.", err=True)


def table_clock(config: Config, speed: float) -> Clock:
    """The table's clock: real time for a real table, simulated time (at most ``speed`` x) for the twin.

    With the twin's camera (or none) simulated time passes only as the table takes frames
    (:class:`PacedClock`): the world waits for the judge, so every frame is judged at any speed and
    on a busy machine. A real camera does not wait for anyone, so beside one a simulated IMU lives on
    real time scaled by ``speed`` (:class:`ScaledClock`) and a slow table skips frames, as it must.
    """
    if not config.simulated:
        return SystemClock()
    if config.camera.source in ("sim", "none"):
        return PacedClock(speed)
    return ScaledClock(speed)


def build_session(config: Config, data: Path, clock: Clock, speed: float) -> TableSession:
    """Wire the devices, the judge, the log and the simulated people into one table session."""
    world = None
    camera_factory = None
    imu_factory = None
    if config.simulated:
        from hardware.sim.world import SimWorld

        world = SimWorld(seed=config.sim.seed, fps=config.camera.fps, clock=clock)
    if config.camera.source == "sim":
        from hardware.sim.camera import SimCamera

        def camera_factory() -> Any:
            return SimCamera(world, clock, fps=config.camera.fps)
    elif config.camera.source != "none":
        from hardware.camera_factory import make_camera

        def camera_factory() -> Any:
            return make_camera(config.camera.source, clock)
    if config.imu.source == "sim":
        from hardware.sim.imu_source import SimImu

        def imu_factory() -> Any:
            return SimImu(world, clock)
    elif config.imu.source == "auto":
        from hardware.imu_probe import open_imu

        def imu_factory() -> Any:
            return open_imu(config.imu.bus, clock=clock)
    log = EventLog(data / "events.sqlite", SystemClock())  # people read these timestamps: real time
    faults: list[str] = []
    holder: list[TableSession] = []

    def speech_fault(text: str) -> None:
        if holder:
            holder[0]._fault_locked("speech", text)  # noqa: SLF001
        else:
            faults.append(text)

    speaker = Speaker(config.speech.enabled, config.speech.voice, config.speech.words_per_minute,
                      on_fault=speech_fault) if config.speech.enabled else None
    panel = None
    launcher: Any = SimLauncher(world, config.sim.seed) if world is not None else None
    indicator = None
    if config.gpio.enabled:
        from hardware.gpio_panel import GpioPanel, GpioUnavailable

        try:
            panel = GpioPanel.from_settings(config.gpio, on_spin=lambda: holder and _press(holder[0]),
                                            clock=SystemClock())
            launcher, indicator = panel.launcher, panel.indicators
        except GpioUnavailable as e:
            faults.append(str(e))
    session = TableSession(
        config, log, clock, data_dir=data,
        camera=CameraSlot(camera_factory, clock, config.camera.retry_s),
        imu=ImuSlot(imu_factory, clock, config.imu.retry_s),
        judge_builder=judge_builder(clock, on_fault=lambda text: holder and holder[0]._fault_locked("recognizer", text),  # noqa: SLF001
                                    rocking_level_dps=config.imu.rocking_level_dps),
        launcher=launcher, indicator=indicator, speaker=speaker, world=world, speed=speed,
    )
    holder.append(session)
    for text in faults:
        session._fault_locked("setup", text)  # noqa: SLF001 - start-up faults go to the judge page too
    if panel is not None:
        panel.start()
    return session


def _press(session: TableSession) -> None:
    """The spin button or the assistive switch: the launcher spins for whoever's turn it is."""
    from controller.table_session import CommandError

    try:
        spinner = session.expected_spinner()
        session.launch(f"player:{spinner}" if spinner else "machine")
    except CommandError as e:
        session._fault_locked("button", f"button pressed but no launch: {e}")  # noqa: SLF001


@click.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="The table's TOML configuration (default: a simulated 10-player table).")
@click.option("--sim", is_flag=True, help="Use the digital twin for every device, whatever the configuration says.")
@click.option("--sim-speed", type=click.FloatRange(min=0.05, max=200), default=None,
              help="The most simulated seconds that pass per real second (default: [sim] speed, 1). The "
                   "simulation slows down when the table cannot judge every camera frame that fast.")
@click.option("--host", default=None, help="Address to serve on (default: [web] host, 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="Port (default: [web] port, 8080; 0 = any).")
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the event log, evidence and the judge password "
                   "(default: $SEVIVON_DATA or ~/.local/share/sevivon[/sim]).")
@click.option("--set-password", is_flag=True, help="Set the judge password (asks on the terminal) and exit.")
def run(config_path: Path | None, sim: bool, sim_speed: float | None, host: str | None, port: int | None,
        data: Path | None, set_password: bool) -> None:
    """Run a table: judge spins, play the rules, serve the display and the judge console."""
    try:
        config = load_config(config_path)
    except ConfigError as e:
        raise click.ClickException(str(e)) from None
    if sim:
        config = config.forced_sim()
    speed = sim_speed if sim_speed is not None else config.sim.speed
    host = host or config.web.host
    port = config.web.port if port is None else port
    data = data or default_data_dir(config.simulated)
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise click.ClickException(f"cannot create the data folder {data}: {e.strerror or e}") from None
    store = PasswordStore(data / "judge_password")
    try:
        ensure_password(store, set_password)
    except PasswordError as e:
        raise click.ClickException(str(e)) from None
    if set_password:
        return
    clock = table_clock(config, speed)
    try:
        session = build_session(config, data, clock, speed if config.simulated else 1.0)
    except EventLogError as e:
        raise click.ClickException(str(e)) from None

    import logging

    from werkzeug.serving import make_server

    from web.app import create_app

    app = create_app(session, passwords=store, secret_key=load_secret_key(data / "secret_key"),
                     clock=SystemClock(), session_minutes=config.web.session_minutes,
                     login_attempts=config.web.login_attempts, login_window_s=config.web.login_window_s)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request (SSE, polling)
    try:
        server = make_server(host, port, app, threaded=True)
    except OSError as e:
        session.stop()
        raise click.ClickException(f"cannot serve on {host}:{port}: {e.strerror or e} "
                                   "(another program uses the port? try --port)") from None
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    url = f"http://{shown}:{server.server_port}/"
    mode = f"simulated table at up to {speed:g}x speed" if config.simulated else "table"
    click.echo(f"Sevivon {mode} '{session.table}' (data in {data})")
    click.echo(f"Display:       {url}")
    click.echo(f"Judge console: {url}judge")
    if host in ("0.0.0.0", ""):
        lan = lan_address()
        if lan:
            click.echo(f"On the LAN:    http://{lan}:{server.server_port}/")
    sys.stdout.flush()

    def shutdown(signum: int, frame: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    session.start()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        session.broker.close()
        session.stop()
        session.log.close()
        click.echo("Sevivon stopped.")
