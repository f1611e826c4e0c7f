"""Drivers behind small interfaces (camera, IMU, GPIO), each with a fake or simulated twin."""
