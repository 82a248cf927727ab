"""Building ops: the constructors of dsh_conformance/PROTOCOL.md's scenario ops.

`scenario` builds registry, session and DeepSeek ops; `loopscenario` builds the loop's. Pure data
constructors over the standard library: imports nothing else of the suite.
"""
