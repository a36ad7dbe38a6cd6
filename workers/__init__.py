"""rq jobs: AI turns and analytics. They write only through the command path (events.commands)."""
