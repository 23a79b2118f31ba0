"""The weights of the learned evaluation (`engine.witches.evaluation`), one per feature: data,
written by `python -m ai.witches_eval fit`: 27,377 trick starts of 1,053 games of witches `medium`
against itself, 2 players, seeds `witches-eval:0` to `:1052`, one game in four on the increasing side)."""

WEIGHTS: tuple[float, ...] = (
    0.13997029346602852,  # margin
    -0.5512507331790892,  # margin_late
    1.9050126827933689,  # margin_spread
    0.4090375119190353,  # margin_last
    -0.08545384852926927,  # leads
    0.19910073928410438,  # leads_late
    0.0851044208333077,  # trumps
    -0.18300826637863254,  # trump_strength
    0.17255513381875626,  # top_trumps
    0.0725242687305934,  # high_plain
    0.026560435142156984,  # trump_value
    0.017466769300493217,  # plain_value
    0.07007249897437541,  # longest_colour
    0.14845886575316922,  # captured_cards
    0.4249493346861637,  # trumps_late
    0.642283042004203,  # trump_strength_late
    -0.3983969691720116,  # top_trumps_late
    0.09333155474091305,  # high_plain_late
    -0.3423125168954874,  # trump_value_late
    -0.7550428886857175,  # plain_value_late
)
