"""Well-known names spelt one way, and what kind of thing each is (the matter a decision about it decides).

Small and explicit on purpose: "postgres", "Postgres" and "postgresql" must reconcile as one value,
and "we moved to MySQL" must replace "we chose PostgreSQL" because both decide the database.
"""

from __future__ import annotations

_KINDS: dict[str, tuple[str, ...]] = {
    "database": (
        "PostgreSQL", "MySQL", "SQLite", "MariaDB", "MongoDB", "Redis", "Cassandra", "DynamoDB",
        "Oracle", "SQL Server", "CockroachDB", "ClickHouse", "Elasticsearch", "Neo4j", "Firestore",
        "Supabase", "DuckDB",
    ),
    "programming language": (
        "Python", "Rust", "Go", "Java", "JavaScript", "TypeScript", "Kotlin", "Swift", "Ruby", "PHP",
        "C++", "C#", "Scala", "Elixir", "Haskell", "Zig", "Julia",
    ),
    "cloud": ("AWS", "Azure", "Google Cloud", "Heroku", "Vercel", "Netlify", "DigitalOcean", "Fly.io"),
    "frontend framework": ("React", "Vue", "Angular", "Svelte", "Next.js", "Nuxt", "SolidJS"),
    "backend framework": ("Django", "Flask", "FastAPI", "Rails", "Express", "Spring", "Laravel"),
    "editor": ("Vim", "Neovim", "Emacs", "VS Code", "IntelliJ", "PyCharm", "Sublime Text", "Zed"),
    "message broker": ("Kafka", "RabbitMQ", "NATS", "Pulsar"),
    "ci": ("GitHub Actions", "GitLab CI", "Jenkins", "CircleCI", "Buildkite"),
}  # fmt: skip

_ALIASES: dict[str, str] = {
    "postgres": "PostgreSQL", "postgresql": "PostgreSQL", "psql": "PostgreSQL", "pg": "PostgreSQL",
    "mongo": "MongoDB", "mssql": "SQL Server", "sqlserver": "SQL Server", "golang": "Go",
    "js": "JavaScript", "ts": "TypeScript", "py": "Python", "python3": "Python",
    "vscode": "VS Code", "visual studio code": "VS Code", "nvim": "Neovim", "k8s": "Kubernetes",
    "gcp": "Google Cloud", "amazon web services": "AWS", "react.js": "React", "reactjs": "React",
    "vue.js": "Vue", "nextjs": "Next.js", "ruby on rails": "Rails", "gh actions": "GitHub Actions",
}  # fmt: skip

#: casefolded spelling → the one spelling recorded.
CANONICAL_NAMES: dict[str, str] = {
    **{name.casefold(): name for names in _KINDS.values() for name in names},
    **_ALIASES,
}

#: casefolded canonical name → the matter a decision about it decides.
MATTER_OF: dict[str, str] = {name.casefold(): kind for kind, names in _KINDS.items() for name in names}
