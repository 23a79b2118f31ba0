"""The styles of play that samples are weighed by (`engine.witches.inference`): data, written by
`python -m ai.witches_inference fit`. search: 23,100 decisions of 300 games of self-play at 3,000
simulations with the exact endgame (seed infer-train); held out, plays -1.192 a decision against
-1.697 for uniform, trump decisions -0.394 against -0.693. heuristic: 115,500 decisions of 1,500
games of the simple player against itself (seed infer-simple); held out, plays -0.089, trump
decisions -0.039."""

#: Each style: its prior, its play weights (`PLAY_FEATURES`' order), then its trump decisions'
#: weights (`TRUMP_FEATURES`' order).
STYLE_WEIGHTS: dict[str, tuple[float, tuple[float, ...], tuple[float, ...]]] = {
    'search': (
        0.5,
        (
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
        ),
        (
            1.1223319803972935,  # keep
            -1.0971778022043928,  # value
            4.08295748101103,  # colour_gain
            5.354031492932327,  # power_gain
        ),
    ),
    'heuristic': (
        0.5,
        (
            -1.0534929736551706,  # lead_trump
            -1.238336896075512,  # lead_value
            -0.0630217150708206,  # lead_strength
            5.375012279254758,  # lead_cheapest
            0.4580460529052971,  # wins
            -3.750914676847739,  # wins_trump
            6.889690998114629,  # wins_stake
            4.456464084607031,  # wins_weakest
            -0.6747822640817757,  # loses_value
            -0.01823432268292517,  # loses_trump
            4.262553189413241,  # follow_cheapest
            -0.11343285385574084,  # late_trump
            0.1278362906897163,  # late_value
            0.25978731903636354,  # wins_late
            -0.3199820045996828,  # highest
            0.01811211105482182,  # strength
        ),
        (
            2.638249704344416,  # keep
            -3.0156160202045155,  # value
            3.282594704648643,  # colour_gain
            2.213753701663806,  # power_gain
        ),
    ),
}
