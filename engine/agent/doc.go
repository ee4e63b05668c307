// Package agent runs durable sub-agents: a model reached through an
// OpenAI-compatible chat-completions endpoint works on one objective with
// the workspace_* tools, in bounded passes, and returns a report.
//
// Design decisions:
//
//   - The protocol client is plain net/http with its own types (Message,
//     ToolCall, ChatRequest). A provider SDK would cost package-init time on
//     every aw call. Unknown fields of a reply message are kept and sent
//     back as they came; "reasoning" and "reasoning_content" are both read
//     into Reasoning, recorded in the transcript and never sent back;
//     tool_call ids are opaque strings echoed byte for byte.
//
//   - Bounded passes. Each pass starts from two messages built from the
//     saved state (the objective, the context, the ledger of ids, and what
//     earlier passes recorded: the model's own words, one line per call,
//     and each call's result compacted by engine/compact), never from the
//     previous pass's transcript. Earlier passes share a fixed budget,
//     newest first; older ones keep only their call lines. Inside a pass
//     the messages grow with each round; over PassBudgetChars the oldest
//     tool results are compacted before the next request. A pass ends when
//     its rounds run out; max_passes, rounds_per_pass and max_tool_calls are
//     hard caps. At the tool-call cap the next request offers no tools and
//     asks for the report; calls made past it are answered with an error
//     and the run stops (status stopped, stoppedBy names the cap). A pass's
//     summary is what the model said in it plus aw's record of its calls:
//     no extra model request is spent on summarising.
//
//   - The run's tools are the ones aw mcp registers, with the same schemas
//     (the Toolbox, installed by engine/schema), narrowed by the offers
//     table: never human verbs, plans (the human's contract with the main
//     agent), sub-agents of its own, background jobs, repository writes or
//     browser sessions; commands only when the run may run them, web
//     research only when it may reach the web. Every call goes through the
//     dispatch row's Run, so the jail, the gate, the command policy and the
//     OS sandbox judge it as they judge a direct caller. Arguments that are
//     not JSON, an unknown tool or action, and every refusal come back to
//     the model as a failed envelope for that tool_call id; the run goes on.
//
//   - The gate, exactly as the tool reference says: commit_edits defaults
//     to true in Auto and in Plan mode with an approved plan, false in
//     Manual, and the request may only lower it. With false the run's edit
//     tool offers preview, show and list; an apply is run as a preview and
//     says so, so its transactions stay planned and are cited in the
//     evidence. Manual mode stages run when the run could run commands or
//     reach the web (an approval of kind agent) and starts it at once
//     otherwise; Plan mode refuses it until a plan is approved. Validation
//     comes first: an invalid request is never staged. A human's approval
//     of a Manual-mode run covers that run's own command and web calls
//     (workspace.Workspace.Grants): they are not staged one by one, since
//     nobody would be there to accept them, but the policy, jail, sandbox
//     and any denial still apply to each. commitEdits is part of the
//     idempotency specification, so a mode change that flips it makes a
//     re-issued idempotency_key EDIT_CONFLICT.
//
//   - Durability: state.json is written before the loop starts (before
//     the supervisor of a started run exists) and after every pass, under
//     the store lock; transcript.jsonl gets every event as it happens.
//     Events are written at once (a killed process loses none) and synced
//     write-ahead: a reply asking for a writing call is on disk, with every
//     event before it, before the call runs. Results ride along with the
//     next sync (the next writing call's reply, or the run's end): one
//     fsync per writing call. A power cut can lose a result no sync covered
//     yet; the resumed run then treats the call as unfinished, and a call
//     that may not run twice is never repeated. state.json names the process holding the
//     loop (pid and start time): a reader that finds it gone records the
//     run interrupted, never running forever.
//
//   - start runs the loop in a detached supervisor (aw re-executed as the
//     hidden `aw agent supervise RUN`, in a session of its own, without the
//     approver token in its environment). The launcher writes state.json,
//     starts it and waits for it to claim the run (running, detached,
//     unclaimed, its launcher alive): one supervisor per run at most. The
//     supervisor exits when the run settles, on a cancel, and when the
//     run's record or .agentic/ disappears (it polls every PollInterval);
//     `aw inspect capabilities` lists it, and `aw gc` kills one that
//     outlived its run or ignored a cancel.
//
//   - cancel works from any process and for foreground runs too: it
//     creates a cancel file the loop polls for (never a write to
//     state.json, which only the owner writes while it lives) and waits for
//     the run to settle. Ctrl-C (or TERM, or a hang-up) of a foreground run
//     cancels it the same way. A cancelled run keeps what it did.
//
//   - start --resume continues an interrupted (or failed) run in a new
//     supervisor: the pass it was in is rebuilt from the transcript (the
//     saved state is what the pass started from, so its brief is the
//     same; replies and results are replayed with their tool_call ids),
//     and the calls of the last reply that got no result are run again
//     only when their action is read-only or declared idempotent; any
//     other is answered with an error saying it may or may not have taken
//     effect. A run started to commit its edits is not resumed in a mode
//     that keeps edits planned (EDIT_CONFLICT).
//
//   - send appends to inbox.jsonl and reads the run's status under the
//     store lock, and a run ends under that lock only when its inbox holds
//     nothing unread (else it reads the message and goes on), so a message
//     sent as a run ends is never left unread. The loop takes
//     new lines in before each model request, records each in the
//     transcript and in the state (later passes' briefs carry them). A
//     settled run runs on with the message in a new supervisor, its caps
//     counted afresh from where it is. send is gated as start is: it
//     changes what a run that may run commands or reach the web does.
//
//   - Worker tiers: tier fast or good picks agents.models.fast or
//     agents.models.good; a tier naming no model is AGENT_DISABLED, a
//     tier with model_id INVALID_INPUT.
//
//   - task_board_id ties a run to a board: every pass's brief shows the
//     board as it is when the pass starts (items by status, the first 50),
//     and the run's workspace_tasks calls name that board (filled in when
//     left out; a mutating call naming another board is refused), so the
//     board, not the transcript, is where its progress lives.
package agent
