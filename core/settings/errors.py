"""The settings error, in a module of its own so that catching it imports nothing heavy."""


class SettingsError(Exception):
    """An invalid settings file or value; its message names the file, the key and the problem."""
