"""Response models of the health routes beyond the probes' own report (clients/health.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel

from tracetax.clients.health import HealthReport
from tracetax.native_stack.watch import Supervision


class ComponentRestarts(BaseModel):
    name: str
    # How often the watcher started it again since `make up`.
    restarts: int
    # How it last ended ("killed by SIGKILL", "exit status 1"; unknown for one `make up` started).
    last_exit: str | None = None
    last_exit_at: datetime | None = None
    # "running", "down: starting it again in 4 s", or "not watched" (the watcher has stopped).
    state: str
    # Why the last attempt to start it failed (a port still taken), if it did.
    last_error: str | None = None


class StackSupervision(BaseModel):
    """The native stack's watcher (`make up` starts it): whether it runs and what it restarted."""

    watching: bool
    detail: str
    components: list[ComponentRestarts]

    @classmethod
    def of(cls, supervision: Supervision) -> StackSupervision:
        detail = (
            "a component that exits is started again (with backoff)"
            if supervision.watching
            else "the watcher is not running: a component that exits stays down until `make up`"
        )
        components = [
            ComponentRestarts(
                name=name,
                restarts=int(entry.get("restarts") or 0),
                last_exit=entry.get("last_exit"),
                last_exit_at=datetime.fromtimestamp(float(entry["last_exit_at"]), UTC)
                if entry.get("last_exit_at") is not None
                else None,
                # What a stopped watcher was about to do no longer holds.
                state=str(entry.get("state") or "running") if supervision.watching else "not watched",
                last_error=entry.get("last_error"),
            )
            for name, entry in supervision.components.items()
        ]
        return cls(watching=supervision.watching, detail=detail, components=components)


class HealthAnswer(HealthReport):
    # None: this backend does not run in a native stack (compose, Helm) or its watcher never ran.
    supervision: StackSupervision | None = None
