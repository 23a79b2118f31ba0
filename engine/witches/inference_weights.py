"""The weights of the policy that weighs samples by the other seats' choices
(`engine.witches.inference`): data, written by `python -m ai.witches_inference fit` from 23,100
decisions of 300 games of self-play at 3,000 simulations with the exact endgame, 2 players
(`python -m ai.witches_inference generate 3000 300 decisions.jsonl --seed infer-train`).
Held out (the last fifth): plays -1.192 a decision against -1.697 for uniform, trump decisions
-0.394 against -0.693."""

PLAY_WEIGHTS: tuple[float, ...] = (
    -0.03790902848043691,  # lead_trump
    0.15139537254893087,  # lead_value
    2.03866094191003,  # lead_strength
    -0.27127327784104366,  # lead_cheapest
    3.440570149201751,  # wins
    -0.8796772364729468,  # wins_trump
    1.9291832129722972,  # wins_stake
    0.5334687835208678,  # wins_weakest
    -1.8119631035309827,  # loses_value
    -0.7436309636502145,  # loses_trump
    -0.2813325923542789,  # follow_cheapest
    0.5613769825271515,  # late_trump
    0.5470166904163677,  # late_value
    -0.6054003887888376,  # wins_late
    0.2927384221875669,  # highest
    -0.9950991114039068,  # strength
)

TRUMP_WEIGHTS: tuple[float, ...] = (
    1.1223319803972935,  # keep
    -1.0971778022043928,  # value
    4.08295748101103,  # colour_gain
    5.354031492932327,  # power_gain
)
