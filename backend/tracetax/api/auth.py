"""The API's bearer token and the 401/403 answers of the security settings.

The token in force is tracetax.core.api_token's: an operator's TRACETAX_API_TOKEN, or the one
generated into the state directory. `TokenGuard` (api/middleware.py) enforces it before any
route reads a body; `require_token`, mounted on every /api router but liveness (api/main.py),
decides the same again and declares the bearer scheme in the OpenAPI (the Authorize button in
/docs). With auto_error=False a missing header reaches this code, which answers with a sentence.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request, Security, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from tracetax.api.redacted import reveal_in
from tracetax.api.schemas.errors import error_responses
from tracetax.core.api_token import ApiToken
from tracetax.core.config import Settings
from tracetax.core.security import TOKEN_SETTING, CommandNotAllowedError
from tracetax.spec.base import SubjectSpec
from tracetax.subjects.registry import subject_for

bearer = HTTPBearer(
    auto_error=False,
    scheme_name="APIToken",
    description=(
        f"The backend's {TOKEN_SETTING}, or the token it generated into its state directory (the link `make up` "
        "prints logs in with it): required for every request that starts or changes anything, and for reads "
        "when TRACETAX_READS_NEED_TOKEN (by default with an operator's token)."
    ),
)

UNAUTHORIZED = error_responses({401: "no or a wrong bearer token where this request needs one"})
FORBIDDEN = error_responses(
    {403: "a command service this backend may not start (TRACETAX_COMMAND_SERVICES, TRACETAX_COMMAND_ALLOWLIST)"}
)


def require_token(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)]
) -> None:
    token: ApiToken = request.app.state.api_token
    presented = credentials.credentials if credentials is not None else None
    refusal = token.refusal(request.method, request.url.path, presented)
    if refusal is not None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, refusal.detail, headers={"WWW-Authenticate": refusal.challenge}
        )


def reveal_when_asked(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)],
    reveal: Annotated[
        bool,
        Query(
            description="Answer the spec's secrets (the values of credential-carrying header and env names) as "
            'stored instead of "***": only with the bearer token, whatever TRACETAX_READS_NEED_TOKEN says; '
            "without a valid one it is 401."
        ),
    ] = False,
) -> None:
    """A route's answer shows its secrets when asked (`reveal=true`) with the token (401 if
    not): the request is marked so that api/redacted.py lets the answer pass as it is."""
    if not reveal:
        return
    token: ApiToken = request.app.state.api_token
    refusal = token.refusal_of(credentials.credentials if credentials is not None else None)
    if refusal is not None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, refusal.detail, headers={"WWW-Authenticate": refusal.challenge}
        )
    reveal_in(request)


# A route whose answer a token holder may ask to see with its secrets: `dependencies=[REVEALABLE]`.
REVEALABLE = Depends(reveal_when_asked)


def require_allowed_service(settings: Settings, spec: SubjectSpec) -> None:
    """403 naming the setting when the spec's command service may not run on this backend."""
    try:
        subject_for(spec).rules.check_allowed(settings, spec)
    except CommandNotAllowedError as error:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(error)) from None
