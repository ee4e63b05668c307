package commands

import (
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/mcpserver"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the workspace_* tools over the Model Context Protocol (stdio)",
		Long: `Serve aw's workspace_* tools to an MCP client over stdin/stdout.

Each tool takes an "action" and that action's arguments (schemas generated
from the same request types the commands use; see ` + "`aw schema`" + `) and returns
the agentic-workspace/v1 envelope as text and structured content. Which
tools and actions are offered follows the settings and --tier, re-read for
every call: a settings change is picked up without a restart and the client
is told the tool list changed. When the workspace cannot be opened, one
agentic_workspace_status tool says why.

With mcp.elicitApprovals on (aw config set mcp.elicitApprovals true) and a
client that supports elicitation, a staged approval is offered to the human
through the client and recorded as ` + "`aw approval accept|deny`" + ` would.

The server exits when stdin closes. Example client configuration:
  {"command": "aw", "args": ["mcp", "--root", "/path/to/project"]}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := a.workspaceOptions()
			if err != nil {
				a.emit(envelope.Fail("mcp", err))
				return nil
			}
			// A long-lived server keeps a small live heap and allocates
			// about 150 KiB per small call (half of it the SDK's decoder
			// buffers): at the default GOGC it collected every few
			// calls. A larger ratio trades some MiB of heap for that,
			// unless GOGC is set.
			if a.io.Getenv("GOGC") == "" {
				debug.SetGCPercent(400)
			}
			command.LongLived = true
			srv := mcpserver.New(mcpserver.Options{Workspace: opts, Version: Version})
			if err := srv.Run(cmd.Context(), mcpserver.Transport(a.io.In, a.io.Out)); err != nil && cmd.Context().Err() == nil {
				a.warn("mcp: %v", err)
				a.exitCode = ExitFailed
			}
			return nil
		},
	}
}

// workspaceOptions is openWorkspace's choice of root, scope and tier,
// without opening: a long-lived front end opens once per call.
func (a *app) workspaceOptions() (workspace.Options, error) {
	tier, err := workspace.ParseTier(a.tier)
	if err != nil {
		return workspace.Options{}, err
	}
	root := a.root
	if root == "" {
		root = a.io.Getenv("AW_ROOT")
	}
	return workspace.Options{Root: root, WorkingDir: a.io.Dir, Scope: a.scope, Tier: tier, ConfigHome: a.configHome()}, nil
}
