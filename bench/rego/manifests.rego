# policylint's min ISR and RF rules on Strimzi KafkaTopics without their cluster, ported to
# Rego for bench/opa.py: PL209 RF below 2, PL301 min.insync.replicas above the RF, PL302
# equal to it, PL303 below 2 where the RF is 3 or more. `findings` judges a list of
# documents (opa eval, the YAML decoded by OPA in Go); `deny` and `warn` judge one
# document, as conftest hands them.
package main

import rego.v1

findings contains f if {
	some doc in input
	some f in judged(doc)
}

deny contains sprintf("%s %s", [f.rule, f.topic]) if {
	some f in judged(input)
	f.rule in {"PL209", "PL301"}
}

warn contains sprintf("%s %s", [f.rule, f.topic]) if {
	some f in judged(input)
	f.rule in {"PL302", "PL303"}
}

judged(doc) := {{"rule": rule, "topic": doc.metadata.name} |
	some rule in ["PL209", "PL301", "PL302", "PL303"]
	breaks(rule, doc.spec.replicas, object.get(doc.spec, ["config", "min.insync.replicas"], 1))
}

breaks("PL209", rf, _) if rf < 2

breaks("PL301", rf, min_isr) if min_isr > rf

breaks("PL302", rf, min_isr) if {
	min_isr == rf
	rf > 1
}

breaks("PL303", rf, min_isr) if {
	rf >= 3
	min_isr < 2
}
