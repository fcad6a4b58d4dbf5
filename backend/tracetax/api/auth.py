"""The API's bearer token and the 401/403 answers of the security settings.

`require_token` guards every /api route but liveness (api/main.py mounts it): with
TRACETAX_API_TOKEN set, a request without `Authorization: Bearer <that token>` is 401. Declared
through HTTPBearer so the OpenAPI has a bearer scheme (the Authorize button in /docs); with
auto_error=False a missing header reaches this code, which answers it with a sentence.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import HTTPException, Request, Security, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from tracetax.api.schemas.errors import error_responses
from tracetax.core.config import Settings
from tracetax.core.security import TOKEN_SETTING, CommandNotAllowedError, check_spec, token_matches
from tracetax.engine.spec import AnySpec

bearer = HTTPBearer(
    auto_error=False,
    scheme_name="APIToken",
    description=f"The backend's {TOKEN_SETTING}, required when it has one.",
)

UNAUTHORIZED = error_responses({401: f"no or a wrong bearer token ({TOKEN_SETTING} is set)"})
FORBIDDEN = error_responses(
    {403: "a command service this backend may not start (TRACETAX_COMMAND_SERVICES, TRACETAX_COMMAND_ALLOWLIST)"}
)


def require_token(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)]
) -> None:
    settings: Settings = request.app.state.settings
    expected = settings.api_token.get_secret_value() if settings.api_token is not None else None
    presented = credentials.credentials if credentials is not None else None
    if token_matches(expected, presented):
        return
    if presented is None:
        detail = (
            f"This TraceTax requires an API token: send `Authorization: Bearer <token>` with the backend's "
            f"{TOKEN_SETTING} (the UI asks for it; the CLI reads {TOKEN_SETTING} from its environment)"
        )
        challenge = "Bearer"
    else:
        detail = f"The API token was refused: send the value of {TOKEN_SETTING} the backend runs with"
        challenge = 'Bearer error="invalid_token"'
    raise HTTPException(status.HTTP_401_UNAUTHORIZED, detail, headers={"WWW-Authenticate": challenge})


def require_allowed_service(settings: Settings, spec: AnySpec) -> None:
    """403 naming the setting when the spec's command service may not run on this backend."""
    try:
        check_spec(settings, spec)
    except CommandNotAllowedError as error:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(error)) from None
