"""The Flask app: table display, judge console, setup and evidence viewer."""
