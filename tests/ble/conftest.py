"""Fixtures of the BLE tests."""

from tests.ble.bluez_env import bluez_env

__all__ = ["bluez_env"]
