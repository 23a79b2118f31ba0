"""Markdown tables of the benchmark results in bench/results/*.json, each saying when, at which
commit and on what it was measured: the docs' benchmark pages are made of these, never of prose.

`python -m bench.tables` prints them all; the MkDocs hook (docs/hooks/generated.py) puts each on
its page at every build, and `make bench-peers` prints its own at the end of a run. Standard
library only: the docs build imports it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
#: The head-to-heads `python -m bench.matches` records, under RESULTS.
MATCHES_FILE = "matches.json"


def load(folder: Path, name: str) -> dict[str, Any] | None:
    """One result file, or None when that benchmark has not been run and committed."""
    path = folder / name
    return json.loads(path.read_text()) if path.exists() else None


def provenance(report: dict[str, Any], name: str) -> str:
    """The line under a table: when, at which commit, on what machine, from which file."""
    when = (report.get("generated") or report.get("when") or report.get("date") or "an unknown date").replace("T", " ")
    when = when.replace("+00:00", " UTC")
    commit = report.get("commit") or "an unrecorded commit"
    machine = report.get("machine")
    cores = report.get("cores") or (machine.get("cores") or machine.get("cpus") if isinstance(machine, dict) else None)
    cpu = (report.get("cpu") or report.get("processor")
           or (machine.get("platform") if isinstance(machine, dict) else None) or "an unrecorded CPU")
    python = f", Python {report['python']}" if report.get("python") else ""
    took = f"; the run took {report['seconds']:,} s" if report.get("seconds") else ""
    return (f"*Measured {when}, at commit `{commit}`, on {cpu} ({cores or '?'} cores){python}"
            f"{took}. Source: `bench/results/{name}`.*")


def missing(name: str, target: str) -> str:
    """Said where a table would be when its results are not committed."""
    return f"*No `bench/results/{name}` committed yet: `{target}` writes it.*"


def search_tables(folder: Path = RESULTS) -> str:
    """`make bench`'s search speed: one table per game."""
    report = load(folder, "latest.json")
    if report is None:
        return missing("latest.json", "make bench")
    out = [f"Compiled modules: {len(report.get('compiled', []))}. Budget: "
           f"{report['budget']['iterations']:,} search iterations and {report['budget']['playouts']:,} "
           "playouts a measurement, rates per CPU second, one core.", ""]
    for game, rows in report["games"].items():
        out += [f"#### {game}", "",
                "| players | position | legal moves | search iterations/s | playouts/s "
                "| determinized playouts/s | search / playouts |",
                "|---:|---|---:|---:|---:|---:|---:|"]
        for row in rows:
            out.append(f"| {row['players']} | {row['position']} | {row['legal_moves']} "
                       f"| {row['iterations_per_s']:,} | {row['playouts_per_s']:,} "
                       f"| {row['determinized_playouts_per_s']:,} | {row['search_vs_playouts']:.2f} |")
        out.append("")
    out.append(provenance(report, "latest.json"))
    return "\n".join(out)


def level_table(folder: Path = RESULTS) -> str:
    """`make bench`'s CPU seconds a move of every searching level, by game and player count (the
    larger of its two positions), easy / medium / hard."""
    report = load(folder, "latest.json")
    if report is None or not report.get("level_cpu_seconds"):
        return missing("latest.json", "make bench")
    out = ["| game | players | " + " | ".join(_levels(report)) + " |",
           "|---|---:|" + "---:|" * len(_levels(report))]
    for game, rows in report["level_cpu_seconds"].items():
        for players in sorted({row["players"] for row in rows}):
            same = [row for row in rows if row["players"] == players]
            out.append(f"| {game} | {players} | "
                       + " | ".join(f"{max(row.get(name, 0.0) for row in same):.3f}" for name in _levels(report))
                       + " |")
    out += ["", provenance(report, "latest.json")]
    return "\n".join(out)


def whole_game_table(folder: Path = RESULTS) -> str:
    """`make bench`'s CPU seconds a decision of `hard` over whole two-player games against itself."""
    report = load(folder, "latest.json")
    if report is None or not report.get("whole_game_cpu_seconds"):
        return missing("latest.json", "make bench")
    out = ["| game | level | games (seeds) | decisions | CPU a decision: mean | largest "
           "| decisions solved exactly | their mean | their largest |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for game, row in report["whole_game_cpu_seconds"].items():
        solved = (f"{row['solved_decisions']} | {row['solved_mean']:.3f} | {row['solved_max']:.3f}"
                  if row["solved_decisions"] else "0 | — | —")
        seeds = ", ".join(f"`{seed}`" for seed in row["seeds"])
        out.append(f"| {game} | `{row['level']}` | {len(row['seeds'])} ({seeds}) | {row['decisions']} "
                   f"| {row['mean']:.3f} | {row['max']:.3f} | {solved} |")
    return "\n".join([*out, "", provenance(report, "latest.json")])


def _levels(report: dict[str, Any]) -> list[str]:
    """The searching levels a level report times, weakest first."""
    rows = next(iter(report["level_cpu_seconds"].values()))
    return [key for key in rows[0] if key not in ("players", "position")]


def openspiel_table(folder: Path = RESULTS) -> str:
    """`make bench`'s side-by-side run of OpenSpiel's ISMCTS and Coven's."""
    report = load(folder, "openspiel.json")
    if report is None:
        return missing("openspiel.json", "make bench")
    out = ["| OpenSpiel game | witches players | simulations | Coven/s | OpenSpiel C++/s "
           "| OpenSpiel Python/s | Coven vs C++ | Coven vs Python |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in report["rows"]:
        out.append(f"| `{row['openspiel_game']}` | {row['witches_players']} | {row['simulations']:,} "
                   f"| {row['coven_per_s']:,} | {row['openspiel_cpp_per_s']:,} "
                   f"| {row['openspiel_python_per_s']:,} | {row['coven_vs_cpp']:.2f}× "
                   f"| {row['coven_vs_python']:.1f}× |")
    return "\n".join([*out, "", provenance(report, "openspiel.json")])


def http_table(folder: Path = RESULTS, name: str = "http.json") -> str:
    """`make bench-http`'s web tier under load (from `folder`/`name`)."""
    report = load(folder, name)
    if report is None:
        return missing(name, "make bench-http")
    w, t, b, m = report["waiters"], report["throughput"], report["bots"], report["redis"]
    rows = [
        ("waiters held (half long-polls, half event streams)",
         f"{w['waiters_held_min']:,} of {w['waiters_asked']:,}, over {w['matches']:,} matches"),
        ("`/healthz` while they wait", f"p50 {w['healthz']['p50_ms']} ms, p99 {w['healthz']['p99_ms']} ms"),
        ("move POST while they wait (wakes its match's waiters)",
         f"p50 {w['move_post']['p50_ms']} ms, p99 {w['move_post']['p99_ms']} ms"),
        ("bare Flask + Redis endpoint", f"{t['bare_rps']:,} requests/s"),
        ("match view", f"{t['view_rps']:,} requests/s: {t['view_ratio']}× bare"),
        ("server CPU a request: bare, view", f"{t['bare_cpu_ms']} ms, {t['view_cpu_ms']} ms "
                                               f"({t['view_cpu_ratio']}× bare)"),
        ("move", f"{t['move_rps']:,} requests/s: {t['move_ratio']}× bare"),
        ("server CPU a move POST (its reads taken out)", f"{t['move_cpu_ms']} ms ({t['move_cpu_ratio']}× bare)"),
    ]
    for key, value in b.items():
        if isinstance(value, dict):
            rows.append((f"`{b['level']}` bot turn, {key.replace('_', ' ')}",
                         f"p50 {value['p50_ms']} ms, p99 {value['p99_ms']} ms ({value['n']} turns)"))
    rows.append(("a person's bot turn among bots-only matches, p50 against idle",
                 f"{b['crowded_over_idle_p50']}×"))
    if "analyses_over_idle_p99" in b:  # runs since analyses have a queue of their own
        rows.append(("a person's bot turn with 16 analyses queued, p99 against idle",
                     f"{b['analyses_over_idle_p99']}× (target ≤ 1.5×)"))
    if "bot_turns_recovered" in b:  # runs since bot turns are claimed with a lease
        rows.append(("bot turns recovered, searches run twice (saturated, no kill)",
                     f"{b['bot_turns_recovered']}, {b['bot_turns_duplicate_searches']} (target 0, 0)"))
    for status in ("active", "finished"):
        parts = ", ".join(f"{name} {size}" for name, size in m[f"{status}_by_key"].items())
        rows.append((f"Redis per {status} match ({m['game']})", f"{m[f'{status}_bytes']:,} bytes ({parts})"))
    out = ["| measure | result |", "|---|---|", *(f"| {name} | {value} |" for name, value in rows)]
    return "\n".join([*out, "", provenance(report, name)])


#: bench/peers.py's names of Coven's transports and of boardgame.io's stores, as a reader says them.
TRANSPORTS = {"coven-ws": "WebSocket", "coven-sse": "event stream + POST", "coven-longpoll": "long-poll + POST"}
PEER_STORES = {"bgio-memory": "in-memory", "bgio-flatfile": "FlatFile"}
#: idle.js's names of the transports an idle seat follows on.
IDLE_TRANSPORTS = {"ws": "WebSocket", "sse": "event stream", "longpoll": "long-poll"}


def peers_table(folder: Path = RESULTS) -> str:
    """`make bench-peers`: Coven ÷ boardgame.io per transport and size, memory, idle seats."""
    report = load(folder, "peers.json")
    if report is None:
        return missing("peers.json", "make bench-peers")
    sizes, ratios = report["settings"]["sizes"], report["ratios"]
    out = ["| Coven ÷ boardgame.io (mean of the rounds, min–max) | "
           + " | ".join(f"{size} matches" for size in sizes) + " |", "|---|" + "---|" * len(sizes)]
    for transport, said in TRANSPORTS.items():
        for peer, store in PEER_STORES.items():
            for measure, label in (("moves_per_s", "moves/s"), ("cpu_ms_per_move", "server CPU per move"),
                                   ("memory_bytes_per_match", "memory per match played")):
                cells = []
                for size in sizes:
                    cell = ratios.get(f"{transport}/{peer}/{size}/{measure}")
                    cells.append(f"{cell['mean']:.2f}× ({cell['min']:.2f}–{cell['max']:.2f})" if cell else "—")
                if any(cell != "—" for cell in cells):  # runs before the memory per match played have none
                    out.append(f"| {label}, {said} vs {store} | " + " | ".join(cells) + " |")
    played = _memory_played(report, sizes[-1])
    if played:
        out += ["", f"Memory per match played, at {sizes[-1]} matches (what the store holds after the run over the "
                f"matches it created, each kept with its log; mean of the rounds): "
                + "; ".join(f"{name} {value:,.0f} bytes" for name, value in played.items()) + "."]
    memory = report.get("memory_bytes_per_match") or {}
    if memory:
        out += ["", f"Memory per new match: Coven {memory['coven']:,.0f} bytes in Redis; boardgame.io "
                f"{memory['bgio-memory']:,.0f} bytes of heap in memory ({memory['coven'] / max(memory['bgio-memory'], 1):.2f}×), "
                f"{memory['bgio-flatfile']:,.0f} with FlatFile."]
    if report.get("idle"):
        out += ["", "| idle followed seats | open | server cores | server memory | `/healthz` p50 / p99 |",
                "|---|---|---|---|---|"]
        for run in report["idle"]:
            if "error" in run:
                out.append(f"| {run['followers']:,} on {run['transport']} | the run failed | | | |")
                continue
            failed = f" ({run['healthz_errors']} probes failed)" if run.get("healthz_errors") else ""
            out.append(f"| {run['followers']:,} on {IDLE_TRANSPORTS.get(run['transport'], run['transport'])} "
                       f"| {run['open']:,} | {run['server_cores']:.3f} | {run['server_rss_mb']:,.0f} MB "
                       f"| {run['healthz_p50_ms']:.1f} / {run['healthz_p99_ms']:.1f} ms{failed} |")
    loads = [load[0] for load in report["machine"].get("load_average_1_5_15", [])]
    if loads:
        out += ["", f"Load average (1 min) during the run: {min(loads):.1f} to {max(loads):.1f} on "
                f"{report['machine'].get('cpus', '?')} cores."]
    return "\n".join([*out, "", provenance(report, "peers.json")])


def _memory_played(report: dict[str, Any], size: int) -> dict[str, float]:
    """Each system's mean bytes per match played at `size` matches (Coven in Redis, boardgame.io in heap)."""
    names = {**{system: f"Coven over {said}" for system, said in TRANSPORTS.items()},
             **{system: f"boardgame.io {store} (heap)" for system, store in PEER_STORES.items()}}
    out: dict[str, float] = {}
    for system, name in names.items():
        values = [run["memory_bytes_per_match"] for run in report["runs"]
                  if run["system"] == system and run["matches"] == size and "memory_bytes_per_match" in run]
        if values:
            out[name] = sum(values) / len(values)
    return out


def strength_table(folder: Path = RESULTS) -> str:
    """`make strength`'s head-to-head rows, each with its date and commit (they come from separate runs)."""
    report = load(folder, "strength.json")
    if report is None or not report.get("rows"):
        return missing("strength.json", "make strength")
    out = ["| game | match | games | a's win rate (95% interval) | target | seed | measured |",
           "|---|---|---:|---|---|---|---|"]
    machines = set()
    for row in report["rows"].values():
        met = "met" if row["met"] else "**not met**"
        note = f"; {row['note']}" if row.get("note") else ""
        out.append(f"| {row['game']} | {row['a']} vs {row['b']} | {row['games']:,} "
                   f"| {row['rate']:.3f} ({row['low']:.3f}–{row['high']:.3f}){note} | {row['target']}: {met} "
                   f"| `{row['seed']}` | {row['date'][:10]}, `{row.get('commit') or 'unrecorded'}` |")
        machines.add(f"{row.get('cpu') or 'an unrecorded CPU'} ({row.get('cores') or '?'} cores)")
    out += ["", f"*Played by `make strength` on {', '.join(sorted(machines))}; each row's date and commit "
                "are its own run's. Source: `bench/results/strength.json`.*"]
    return "\n".join(out)


def ladder_table(path: Path = RESULTS.parent.parent / "ai" / "ratings.json") -> str:
    """`make ladder`'s ratings (ai/ratings.json), best first per game, with when each game was rated."""
    if not path.exists():
        return "*No `ai/ratings.json` committed yet: `make ladder` writes it.*"
    games = json.loads(path.read_text())["games"]
    out = ["| game | player | rating | 95% interval | games |", "|---|---|---:|---|---:|"]
    stamps = []
    for game_id, result in games.items():
        for name, r in sorted(result["ratings"].items(), key=lambda item: -item[1]["elo"]):
            interval = "—" if name == "random" else f"{r['low']:+d} … {r['high']:+d}"
            rating = f"{r['elo']:+d}" if r["elo"] else "0"
            out.append(f"| {game_id} | `{name}` | {rating} | {interval} | {r['games']:,} |")
        measured = result.get("measured")
        when = (f"rated {measured['date'][:10]} at commit `{measured.get('commit') or 'unrecorded'}` on "
                f"{measured.get('cpu') or 'an unrecorded CPU'} ({measured.get('cores') or '?'} cores)"
                if measured else "rated before the ladder stamped its runs (see `git log ai/ratings.json`)")
        if measured and measured.get("replayed"):
            kept = measured.get("kept_from") or {}
            kept_date = kept["date"][:10] if kept.get("date") else "an unrecorded date"
            when += (f", replaying the pairs of {', '.join(f'`{p}`' for p in measured['replayed'])} and keeping "
                     f"the others from the run of {kept_date} at commit `{kept.get('commit') or 'unrecorded'}`")
        stamps.append(f"{game_id}: {result['games_per_pair']} games a pair, seed `{result['seed']}`, {when}")
    out += ["", "*" + "; ".join(stamps) + ". Source: `ai/ratings.json`.*"]
    return "\n".join(out)


def matches_table(group: str, folder: Path = RESULTS) -> str:
    """The head-to-heads of one group (`bench.matches`; a page asks with `<!-- generated:
    matches-GROUP -->`), in the file's order, each with its seed and games, its run's date and
    commit, and where measured its pairing with another row of the same games."""
    report = load(folder, MATCHES_FILE)
    rows = {key: row for key, row in (report or {}).get("rows", {}).items() if group in row_groups(row)}
    if not rows:
        return missing(MATCHES_FILE, f"python -m bench.matches --group {group}")
    every = list(rows.values())
    columns = ["match", "games", "a's score (95% interval)"]
    if any(row.get("paired") for row in every):
        columns.append("paired, game by game")
    if any(row.get("seconds_a_per_move") for row in every):
        columns.append("a's CPU a move")
    if any(row.get("target") for row in every):
        columns.append("target")
    columns += ["seed and games", "played"]
    out = ["| " + " | ".join(columns) + " |", "|---|---:|" + "---|" * (len(columns) - 2)]
    machines = set()
    for row in every:
        note = f"; {row['note']}" if row.get("note") else ""
        cells = [f"{row['a']} vs {row['b']}{note}", f"{row['games']:,}",
                 f"{'**' if row.get('bold') else ''}{row['rate']:.3f}{'**' if row.get('bold') else ''} "
                 f"({row['low']:.3f}–{row['high']:.3f})"]
        if "paired, game by game" in columns:
            cells.append(_paired_cell(row.get("paired"), report["rows"] if report else {}))
        if "a's CPU a move" in columns:
            seconds = row.get("seconds_a_per_move")
            cells.append(f"{seconds:.2f} s" if seconds else "")
        if "target" in columns:
            cells.append(row.get("target") or "")
        first = row.get("first", 0)
        cells.append(row.get("seed_text") or f"`{row['seed']}`, games {first}–{first + row['games'] - 1}")
        played = f"{row['date'][:10]}, `{row.get('commit') or 'unrecorded'}`"
        cells.append(f"written down {played}" if row.get("stamp") == "written" else played)
        out.append("| " + " | ".join(cells) + " |")
        if row.get("cpu"):
            machines.add(f"{row['cpu']} ({row.get('cores') or '?'} cores)")
    where = f" on {', '.join(sorted(machines))}" if machines else ""
    out += ["", f"*2 players unless said, seats alternating (game i of a seed seeded `seed:i`, a in seat i mod 2), "
                f"untimed; each row's date and commit are its own run's{where} (\"written down\": the run was not "
                f"dated, and they are the commit's that first recorded its figure). Source: "
                f"`bench/results/{MATCHES_FILE}`, group `{group}`.*"]
    return "\n".join(out)


def row_groups(row: dict[str, Any]) -> list[str]:
    """The tables a recorded match is shown in: its `group`, one name or a list (a match shown on two
    pages is recorded once)."""
    group = row["group"]
    return [group] if isinstance(group, str) else list(group)


def _paired_cell(pairing: dict[str, Any] | None, rows: dict[str, Any]) -> str:
    """`+0.015 (−0.036 … +0.066) over X; 108 differ, a won 57`: a row's pairing with the row `over`."""
    if not pairing:
        return ""
    over = pairing["over"]
    if over in rows:
        over = rows[over].get("short") or rows[over]["a"]

    def signed(value: float) -> str:
        return f"{value:+.3f}".replace("-", "−")

    differ = (f"; {pairing['differ']} games differ, a won {pairing['won']}" if pairing.get("differ") is not None
              else "")
    return f"{signed(pairing['mean'])} ({signed(pairing['low'])} … {signed(pairing['high'])}) over {over}{differ}"


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else RESULTS
    groups = dict.fromkeys(group for row in (load(folder, MATCHES_FILE) or {"rows": {}})["rows"].values()
                           for group in row_groups(row))
    print("\n\n".join([search_tables(folder), level_table(folder), whole_game_table(folder),
                        openspiel_table(folder), http_table(folder), peers_table(folder), strength_table(folder),
                        ladder_table(), *(matches_table(group, folder) for group in groups)]))
