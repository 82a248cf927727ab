"""Running the suite: the pytest plugin, execution, reports, progress, options and the CLI.

`runner` is ``dsh-conformance`` and dispatches to its subcommands (`smoke`, `catalog` for
``--list`` and ``export-cases``, `check_log`, `summary`); `plugin` is the pytest plugin (``-p
dsh_conformance.run.plugin``), which runs each case through `execute` and reports with `report` and
`progress`; `options` is the one table of the suite's options. `summary` reads reports into the
`merged` model (and `compare` reads two runs from it) and renders it with `markdown` or `page`,
which import the model and nothing that imports them.
The top of the import order: it may import every other package of the suite, and none of them
imports it.
"""
