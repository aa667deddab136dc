"""What each topic config does, in one line: what the editor shows on hover
(``policylint server``) beside its type, default and valid values for the release. Written
for policylint from Kafka's topic-config documentation (``TopicConfig``); the numbers live
in ``topic_configs.json``."""

DOCS = {
    "cleanup.policy": "What happens to old segments: `delete` drops them once retention is "
                      "reached, `compact` keeps the latest record per key; both may be given.",
    "compression.gzip.level": "The gzip level the broker compresses with when "
                              "compression.type is gzip.",
    "compression.lz4.level": "The lz4 level the broker compresses with when compression.type "
                             "is lz4.",
    "compression.type": "The codec batches are stored with: gzip, snappy, lz4, zstd, "
                        "uncompressed, or producer (keep the producer's).",
    "compression.zstd.level": "The zstd level the broker compresses with when "
                              "compression.type is zstd.",
    "delete.retention.ms": "How long delete markers (tombstones) of a compacted topic are kept; "
                           "a consumer reading from the start must finish within it.",
    "file.delete.delay.ms": "How long a deleted segment file stays on disk before it is "
                            "removed.",
    "flush.messages": "Force an fsync after this many messages (replication, not fsync, is "
                      "what usually makes writes durable).",
    "flush.ms": "Force an fsync after this many milliseconds (replication, not fsync, is what "
                "usually makes writes durable).",
    "follower.replication.throttled.replicas": "Replicas (partition:broker, or *) whose "
                                               "follower-side replication is throttled; set "
                                               "by kafka-reassign-partitions --throttle.",
    "index.interval.bytes": "How many bytes of log go between entries of the offset index.",
    "leader.replication.throttled.replicas": "Replicas (partition:broker, or *) whose "
                                             "leader-side replication is throttled; set by "
                                             "kafka-reassign-partitions --throttle.",
    "local.retention.bytes": "With tiered storage: how many bytes a partition keeps on the "
                             "broker's disk before segments live only remotely (-2: "
                             "retention.bytes).",
    "local.retention.ms": "With tiered storage: how long segments stay on the broker's disk "
                          "before they live only remotely (-2: retention.ms).",
    "max.compaction.lag.ms": "The longest a record may stay uncompacted in a compacted topic.",
    "max.message.bytes": "The largest record batch the topic accepts (after compression).",
    "message.downconversion.enable": "Whether the broker converts message formats down for "
                                     "old consumers (a no-op from Kafka 4.0).",
    "message.format.version": "The message format the broker writes (removed in Kafka 4.0; "
                              "only v2 remains).",
    "message.timestamp.after.max.ms": "With CreateTime: how far in the future a record's "
                                      "timestamp may be before it is refused.",
    "message.timestamp.before.max.ms": "With CreateTime: how far in the past a record's "
                                       "timestamp may be before it is refused.",
    "message.timestamp.difference.max.ms": "With CreateTime: the largest gap between a "
                                           "record's timestamp and the broker's clock "
                                           "(removed in Kafka 4.0).",
    "message.timestamp.type": "Whether records keep the producer's timestamp (CreateTime) or "
                              "take the broker's (LogAppendTime).",
    "min.cleanable.dirty.ratio": "How much of a compacted log must be uncompacted before the "
                                 "cleaner runs on it.",
    "min.compaction.lag.ms": "The shortest time a record stays uncompacted in a compacted "
                             "topic.",
    "min.insync.replicas": "With acks=all, how many in-sync replicas must have a write for it "
                           "to succeed; with RF 3, 2 survives one broker down.",
    "preallocate": "Whether a new segment file is preallocated on disk.",
    "remote.log.copy.disable": "With tiered storage: stop copying segments to remote storage "
                               "(reads and deletes go on).",
    "remote.log.delete.on.disable": "With tiered storage: delete the remote data when "
                                    "remote.storage.enable is turned off.",
    "remote.storage.enable": "Tiered storage: copy segments to remote storage, keeping only "
                             "local.retention.* on the brokers' disks.",
    "retention.bytes": "The most bytes a partition keeps before the oldest segments go "
                       "(delete policy; -1: no limit); per partition, not per topic.",
    "retention.ms": "How long records are kept before their segment goes (delete policy; -1: "
                    "no limit).",
    "segment.bytes": "The size at which a segment file is closed and a new one started; "
                     "retention and compaction act a segment at a time.",
    "segment.index.bytes": "The size of a segment's offset index file.",
    "segment.jitter.ms": "Random time taken off segment.ms so that segments do not all roll "
                         "at once.",
    "segment.ms": "The time after which a segment is closed even if not full, so retention "
                  "and compaction can act on it.",
    "unclean.leader.election.enable": "Whether a replica out of the ISR may become leader as a "
                                      "last resort, losing the writes it lacks.",
}
