package io.policylint.controller;

import java.util.List;
import java.util.Map;

/**
 * What a request to the controller states of one topic: a creation (its partitions and
 * replication factor, null where a manual assignment gives them, and the configs it sets) or
 * a config change (the keys it sets; a deleted key is not among them).
 */
record Request(String kind, String topic, Integer partitions, Integer replicationFactor,
               List<List<Integer>> assignment, Map<String, String> configs) {

    static Request creation(String topic, Integer partitions, Integer replicationFactor,
                            List<List<Integer>> assignment, Map<String, String> configs) {
        return new Request("create", topic, partitions, replicationFactor, assignment, configs);
    }

    static Request change(String topic, Map<String, String> configs) {
        return new Request("alter", topic, null, null, null, configs);
    }
}
