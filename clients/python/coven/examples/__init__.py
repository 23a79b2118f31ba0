"""Worked example bots, one per game: `coven play --bot coven.examples.witches --game witches`."""
