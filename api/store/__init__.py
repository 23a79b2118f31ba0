"""Redis: match records and their storage, the public log, connections, notifications and the
bot-turn queue."""
