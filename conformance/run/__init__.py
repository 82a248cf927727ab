"""Running the suite: the pytest plugin, execution, reports, progress, options and the CLI.

`runner` is ``dsh-conformance`` and dispatches to its subcommands (`smoke`, `catalog` for
``--list`` and ``export-cases``, `check_log`); `plugin` is the pytest plugin (``-p
conformance.run.plugin``), which runs each case through `execute` and reports with `report` and
`progress`; `options` is the one table of the suite's options. The top of the import order: it may
import every other package of the suite, and none of them imports it.
"""
