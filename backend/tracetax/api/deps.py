"""FastAPI dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from tracetax.core.config import Settings
from tracetax.engine.runtime import EngineRuntime
from tracetax.health import Backends


def get_backends(request: Request) -> Backends:
    backends: Backends = request.app.state.backends
    return backends


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


BackendsDep = Annotated[Backends, Depends(get_backends)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]


def get_engine(request: Request) -> EngineRuntime:
    runtime: EngineRuntime = request.app.state.engine
    return runtime


EngineDep = Annotated[EngineRuntime, Depends(get_engine)]
