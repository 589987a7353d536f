/**
 * Spring Boot auto-configuration of Segment Ledger: the {@code segment-ledger.*} properties, the
 * ledger and its lifecycle, backlog metrics, the {@code segmentLedger} health indicator and the
 * {@code segmentledger} actuator endpoint.
 */
package dev.segmentledger.spring;
