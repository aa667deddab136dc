from ...rule import Rule


class ParseError(Rule):
    """A file is not valid YAML or JSON.

    ## What it does
    Reports a file that cannot be read as YAML or JSON, at the position where the parser
    gave up. Also reports what a safe reader refuses: empty and binary files, duplicate
    keys, non-standard tags such as `!!python/object`, alias bombs, nesting deeper than
    200 levels, NaN or Infinity in JSON, integers too large to read, files over the size
    limit.

    ## Why is this bad?
    A topic or reassignment that cannot be read cannot be checked, and Kafka's own tools
    refuse it too. A duplicate key is worse: most YAML readers silently keep the last
    value, so what is applied is not what a reviewer read.

    ## Example
    ```yaml
    spec:
      replicas: 3
      replicas: 1
    ```

    ## Use instead
    ```yaml
    spec:
      replicas: 3
    ```
    """
    code = "PL100"
    name = "parse-error"
    severity = "error"
