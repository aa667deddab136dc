# policylint's plan rules, ported to Rego for bench/opa.py: the same findings, one per
# (rule, topic, partition), over a reassignment plan (input) and its cluster's snapshot
# (data). PL111 duplicate entry, PL112 duplicate replica, PL113 empty replicas, PL114
# log_dirs of another length, PL115 unknown broker, PL116 unknown partition, PL201 RF change.
package policylint.plan

import rego.v1

brokers := {b.id | some b in data.brokers}

# per topic and partition, its RF before any reassignment in progress (the replicas being
# added are among its replicas, as Kafka writes them)
current := {t.name: rfs |
	some t in data.topics
	rfs := {p.partition: rf | some p in t.partitions; rf := count(p.replicas) - count(object.get(p, "adding", []))}
}

entries := input.partitions

finding(rule, e) := {"rule": rule, "topic": e.topic, "partition": e.partition}

# an entry of a partition an earlier entry names (the comprehension is indexed by key)
keys := [[e.topic, e.partition] | some e in entries]

deny contains finding("PL111", entries[i]) if {
	some i, k in keys
	[j | some j; keys[j] == k][0] < i
}

deny contains finding("PL112", e) if {
	some e in entries
	count(e.replicas) != count({r | some r in e.replicas})
}

deny contains finding("PL113", e) if {
	some e in entries
	count(e.replicas) == 0
}

deny contains finding("PL114", e) if {
	some e in entries
	e.log_dirs
	count(e.log_dirs) != count(e.replicas)
}

deny contains finding("PL115", e) if {
	some e in entries
	some r in e.replicas
	r >= 0
	not r in brokers
}

deny contains finding("PL116", e) if {
	some e in entries
	not current[e.topic][e.partition]
}

deny contains finding("PL201", e) if {
	some e in entries
	count(e.replicas) != current[e.topic][e.partition]
}
