"""Sevivon's controller: the spin judge, the rules engines, the event log, the table session and the CLI."""
