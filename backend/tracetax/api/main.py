"""All API routers, mounted by tracetax.main."""

from fastapi import APIRouter

from tracetax.api.routes import health

api_router = APIRouter()
api_router.include_router(health.router)
