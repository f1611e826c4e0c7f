"""The ``sevivon`` command line.

Each subcommand lives in the module that owns it and is imported only when it is called, so
``sevivon replay`` does not load OpenCV and ``sevivon --help`` is instant.
"""

from __future__ import annotations

import importlib

import click

# name -> ("module", "attribute", "one-line help shown by ``sevivon --help``")
COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": ("controller.run_cli", "run", "Run a table: judge spins, play the rules, serve the display."),
    "replay": ("controller.replay_cli", "replay", "Play a table script through the rules engine."),
    "simulate": ("controller.simulate_cli", "simulate", "Simulate many games to measure their length."),
    "plan": ("controller.plan_cli", "plan", "Recommend an ante schedule for a target duration."),
    "log": ("controller.log_cli", "log", "Read the event log (export a table as a replay script)."),
    "analyze": ("controller.analyze_cli", "analyze", "Judge every spin in a recording."),
    "classify": ("controller.classify_cli", "classify", "Read the letter of a resting dreidel in a still."),
    "sim": ("hardware.sim.cli", "sim", "The digital twin: make simulated recordings."),
    "record": ("hardware.record_cli", "record", "Record from the real camera and IMU."),
    "imu": ("hardware.imu_cli", "imu", "Check the IMU wiring: probe the bus, stream samples."),
    "imu-level": ("controller.imu_level_cli", "imu_level", "Measure the tray's IMU calibration from recorded spins."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module_name, attr, _ = COMMANDS[cmd_name]
        module = importlib.import_module(module_name)
        command = getattr(module, attr)
        if not isinstance(command, click.Command):
            raise TypeError(f"{module_name}.{attr} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Use the static help so that --help imports nothing heavy.
        rows = [(name, COMMANDS[name][2]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup)
@click.version_option(package_name="sevivon")
def main() -> None:
    """Sevivon: a dreidel-table controller that judges real spins and runs a tournament table."""


if __name__ == "__main__":  # pragma: no cover
    main()
