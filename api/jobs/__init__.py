"""Work outside a request: bot turns and analyses on RQ workers, and the sweeper."""
