package dev.segmentledger.cli;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.query.Backlog;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code backlog}: what is still to be uploaded, per axis, across every broadcast. Read-only. */
@Command(name = "backlog", description = "Unconfirmed rows per axis across every broadcast: how many, the age of "
    + "the oldest, how many are due, being uploaded (leased), in backoff, or waiting for their INIT, and their bytes.")
final class BacklogCommand extends LedgerCommand {
  @Override
  public Integer call() {
    Backlog backlog = database.open().backlog(now());
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("at", backlog.at());
      doc.put("unconfirmed", backlog.unconfirmed());
      doc.put("oldestAgeSeconds", backlog.oldestAge().toSeconds());
      Map<String, Object> axes = new LinkedHashMap<>();
      for (Axis axis : Axis.values()) {
        Backlog.AxisBacklog a = backlog.axis(axis);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("unconfirmed", a.unconfirmed());
        figures.put("oldestRegisteredAt", a.oldestRegisteredAt());
        figures.put("oldestAgeSeconds", a.oldestAge(backlog.at()).toSeconds());
        figures.put("due", a.due());
        figures.put("leased", a.leased());
        figures.put("inBackoff", a.inBackoff());
        figures.put("waitingForInit", a.waitingForInit());
        figures.put("unconfirmedBytes", a.unconfirmedBytes());
        axes.put(axis.name(), figures);
      }
      doc.put("axes", axes);
      out().println(Json.write(doc));
      return SegmentLedgerCli.EXIT_OK;
    }
    Table table = new Table("AXIS", "UNCONFIRMED", "OLDEST_AGE", "OLDEST_REGISTERED_AT", "DUE", "LEASED",
        "IN_BACKOFF", "WAITING_FOR_INIT", "BYTES_TO_UPLOAD");
    for (Axis axis : Axis.values()) {
      Backlog.AxisBacklog a = backlog.axis(axis);
      table.row(axis, a.unconfirmed(),
          a.unconfirmed() == 0 ? null : a.oldestAge(backlog.at()).truncatedTo(ChronoUnit.SECONDS),
          a.oldestRegisteredAt(), a.due(), a.leased(), a.inBackoff(), a.waitingForInit(),
          a.unconfirmedBytes() < 0 ? null : a.unconfirmedBytes());
    }
    table.print(out());
    return SegmentLedgerCli.EXIT_OK;
  }
}
