"""The digital twin: a simulated dreidel in a simulated tray, with camera and IMU."""
