package commands

import (
	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/debug"
	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/eval"
	"github.com/agentic-workspace/aw/engine/lsp"
	"github.com/agentic-workspace/aw/engine/treewatch"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func (a *app) brokerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "broker",
		Short: dispatch.Broker.Short,
		Long: `The broker is one background aw process per workspace that keeps what must
outlive a single call warm: language servers (aw lsp), the debug session
(aw debug) and the interpreters of aw eval. The first call that
needs it starts it; later calls reach it over a private unix socket. It
exits by itself after broker.idleSeconds (600) without a call, when its
record under .agentic/broker/ or the workspace's .agentic/ is removed, or
when an aw of another build calls (which starts its own). Every process it
starts runs in the OS sandbox and dies with it.

  aw broker status     the broker's pid, age, idle time and what it holds
  aw broker stop       end it and everything it holds`,
	}
	status := a.verb(dispatch.Broker, "status", "status", nil, nil)
	stop := a.verb(dispatch.Broker, "stop", "stop", nil, nil)
	status.Args, stop.Args = cobra.NoArgs, cobra.NoArgs
	cmd.AddCommand(status, stop, a.brokerServeCmd())
	return cmd
}

// brokerServices are what a broker hosts (and a call runs in its own
// process where no broker runs).
func brokerServices() map[string]broker.Service {
	return map[string]broker.Service{"lsp": lsp.NewService(), "debug": debug.NewService(), "eval": eval.NewService(), "tree": treewatch.NewService()}
}

// brokerServeCmd is the broker process itself, which the first call that
// needs it starts. Hidden: nobody else calls it.
func (a *app) brokerServeCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "serve",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			open := func() (*workspace.Workspace, error) {
				ws, err := a.openWorkspace()
				if err == nil {
					ws.Tier = workspace.TierRead // the broker serves queries; writes go through aw calls
				}
				return ws, err
			}
			if err := broker.Serve(a.root, open, brokerServices()); err != nil {
				a.io.Err.Write([]byte("aw broker: " + err.Error() + "\n"))
				a.exitCode = ExitFailed
			}
			return nil
		},
	}
}
