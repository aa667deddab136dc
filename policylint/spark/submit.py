"""``spark-submit`` entry point of the fleet audit: the arguments are those of
``policylint audit``, and the session is the one spark-submit set up.

    spark-submit --master yarn "$(python -m policylint.spark.submit --path)" \\
        hdfs:///fleet/snapshots/ --output hdfs:///fleet/findings/
"""

import sys

from policylint.cli import main

if __name__ == "__main__":
    if sys.argv[1:] == ["--path"]:  # where this file is, for the spark-submit command line
        print(__file__)
    else:
        sys.argv = ["policylint", "audit", *sys.argv[1:]]
        main()
