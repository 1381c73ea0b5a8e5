import type { CommitStep, WritePipeline } from './sheetWrites.ts';
import { carrySummaryFields, computeSummaryFields } from '../computed/summaryFields.ts';
import { valuesCurrent } from '../computed/currentValues.ts';
import { keepSchedule, scheduleProjectSheet } from '../computed/schedule.ts';
import { syncLinkIndex } from '../computed/cellLinks.ts';
import { followDependents } from '../computed/propagation.ts';
import { removeThreadsOfDeletedRows } from '../collaboration/discussions.ts';
import { removeProofsOfDeletedRows } from '../collaboration/proofs.ts';
import { recordAutomationChanges } from '../outbound/automationRuns.ts';

/**
 * The steps of every sheet write, in the order they run (sheetWrites.ts runs them). server.ts
 * builds the pipeline once, adding what only a running server has (the announcement of new
 * versions to other processes), and hands it to the services with the store; nothing else
 * adds a step.
 */
export function sheetWriteSteps(opts: { committed?: readonly CommitStep[] } = {}): WritePipeline {
  return {
    // in the transaction, each sheet locked, checked and its model taken, before the mutation
    opened: [
      // computed values current (summary fields, {Name} sources as committed now, formulas and
      // TODAY()), as a read brings them; what that changed is saved with the write
      valuesCurrent,
    ],
    // after the mutation, before what it changed is saved
    written: [
      scheduleProjectSheet, // a project sheet's dates follow durations, predecessors and children (its formulas follow them)
      computeSummaryFields, // formula fields follow the cells written, cells reading fields follow them
      syncLinkIndex, // cell links in and out of the rows written; the inbound link limit (1061)
      removeThreadsOfDeletedRows, // deleted rows take their discussions and attachments along
      removeProofsOfDeletedRows, // and their proofs
      recordAutomationChanges, // an automation job for rows added or changed on a sheet with rules
    ],
    // after the commit
    committed: [
      carrySummaryFields, // the cached summary fields stay valid for the new version
      keepSchedule, // a project sheet's schedule: the one read before (inputs left alone) or the one the write computed
      followDependents, // sheets reading a changed sheet (cell links, {Name}) follow it: writes of their own
      ...(opts.committed ?? []),
    ],
  };
}
