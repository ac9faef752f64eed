"""Errors with messages a student can act on: one type for user mistakes, one for missing models."""


class BgDemoError(Exception):
    """Base class: every message here is meant to be shown to the user as it is."""


class InputError(BgDemoError, ValueError):
    """The input cannot be used; the message says what to change."""


class ModelUnavailableError(BgDemoError, RuntimeError):
    """A role's model could not be loaded; the message names the role, the model and the fix."""

    def __init__(self, role: str, model_id: str, reason: str):
        self.role, self.model_id, self.reason = role, model_id, reason
        env = f"BG_DEMO_{role.upper()}"
        super().__init__(
            f"The {role} model '{model_id}' could not be loaded ({reason}). "
            f"Fix: on a machine with internet run `python -m bg_demo download DIR` and start the app "
            f"with BG_DEMO_MODEL_DIR=DIR, or set {env} to a local model folder. "
            f"The other tabs keep working; this one retries on the next request."
        )
