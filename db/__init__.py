"""Shop data: models, engine, migrations, repositories and demo data."""
