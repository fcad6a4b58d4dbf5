"""Response models of the logs route."""

from __future__ import annotations

from pydantic import BaseModel


class LogRecord(BaseModel):
    timestamp_ns: int
    line: str
    configuration: str
    round: int
    metadata: dict[str, str]


class ExperimentLogs(BaseModel):
    experiment_id: str
    # The LogQL run for each round, so the reader can repeat it in Grafana or logcli.
    queries: list[str]
    records: list[LogRecord]
