package dispatch

import (
	"github.com/agentic-workspace/aw/engine/debug"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Debug is workspace_debug: a Debug Adapter Protocol session held by the
// broker.
var Debug = &Tool{Name: "workspace_debug", Noun: "debug", Short: "Drive a debugger (delve, debugpy)",
	Use:     "Debug a program instead of adding prints: set breakpoints (before launching is fine), launch the program stopped at them, then read threads, stack (at most 30 frames), scopes, variables (at most 50 children, values at most 400 characters) and evaluate expressions in a frame; continue, pause and step move it; output is what it printed; terminate ends it. One session per workspace (a second launch is refused; terminate first), ended after 30 minutes at most. launch and attach run a program and are gated like a command run. adapters says which debuggers can start here and why not.",
	Enabled: setting("commands.enabled", func(s *workspace.Settings) bool { return s.Commands.Enabled })}

// Every action is the exec tier (the seed's): a session is a process, and
// even reading its variables runs code in it (evaluate, property getters).
// launch and attach are gated as commands; the rest act on the session
// the gate let start.
func debugActions() []*Action {
	ex := workspace.TierExec
	return []*Action{
		Bind(Debug, "adapters", ex, "", "Which debug adapters can start for this workspace, and exactly why not", debug.Adapters),
		Bind(Debug, "status", ex, "", "Whether a session runs, where it stopped, and the breakpoints set", debug.Status),
		Bind(Debug, "breakpoints", ex, "", "Set a file's breakpoints (no lines clears them); may be set before launch", debug.Breakpoints).Does(Writes | Idempotent),
		Bind(Debug, "launch", ex, "command", "Start a program under the debugger, stopped at the breakpoints (gated like a command run)", debug.Launch).Does(Writes | Destroys | Network),
		Bind(Debug, "attach", ex, "command", "Connect to a debug adapter listening on a loopback port (gated like a command run)", debug.Attach).Does(Writes | Destroys | Network),
		Bind(Debug, "continue", ex, "", "Run until the next stop or the end", debug.Control("continue")).Does(Writes),
		Bind(Debug, "pause", ex, "", "Stop the running program where it is", debug.Control("pause")).Does(Writes),
		Bind(Debug, "step_over", ex, "", "Run to the next line of this function", debug.Control("next")).Does(Writes),
		Bind(Debug, "step_in", ex, "", "Step into the call on this line", debug.Control("stepIn")).Does(Writes),
		Bind(Debug, "step_out", ex, "", "Run until this function returns", debug.Control("stepOut")).Does(Writes),
		Bind(Debug, "threads", ex, "", "The program's threads, ids and names", debug.Threads),
		Bind(Debug, "stack", ex, "", "A thread's frames, at most 30", debug.Stack),
		Bind(Debug, "scopes", ex, "", "A frame's scopes, each with the reference its variables go by", debug.Scopes),
		Bind(Debug, "variables", ex, "", "A reference's children, at most 50, values at most 400 characters", debug.Variables),
		Bind(Debug, "evaluate", ex, "", "Evaluate an expression in a frame's own scope", debug.Evaluate).Does(Writes),
		Bind(Debug, "output", ex, "", "What the program wrote to stdout and stderr, bounded, since a byte offset", debug.Output),
		Bind(Debug, "terminate", ex, "", "End the session and kill the adapter and the program", debug.Terminate).Does(Writes | Destroys | Idempotent),
	}
}
