package io.policylint.controller;

/** One rule's verdict on a request: its code, severity (error, warning, note), message. */
record Finding(String code, String severity, String message) {

    /** As Kafka's client shows a refusal: the code first, as policylint prints it. */
    String said() {
        return code + " [" + severity + "] " + message;
    }
}
