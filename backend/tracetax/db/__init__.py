"""Storage: SQLite by default, any SQLAlchemy URL (PostgreSQL in Helm); Alembic migrations."""
