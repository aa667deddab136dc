"""``spark-submit`` entry point of the fleet audit: the arguments are those of
``policylint audit``, and the session is the one spark-submit set up.

    spark-submit --master yarn "$(python -m policylint.spark.submit --path)" \\
        hdfs:///fleet/snapshots/ --output hdfs:///fleet/findings/
"""

import runpy
import sys

if __name__ == "__main__":
    if sys.argv[1:] == ["--path"]:  # where this file is, for the spark-submit command line
        print(__file__)
    else:  # `python -m policylint audit ...`, as spark-submit runs a script
        sys.argv = ["policylint", "audit", *sys.argv[1:]]
        runpy.run_module("policylint", run_name="__main__", alter_sys=True)
