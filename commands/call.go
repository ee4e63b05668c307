package commands

import (
	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
)

func (a *app) callCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "call TOOL 'JSON'",
		Short: "Run any action from its JSON form, exactly like an MCP tool call",
		Long: `Run any action from its JSON form, exactly like an MCP tool call:

  aw call workspace_inspect '{"action":"read","path":"README.md"}'

TOOL is a tool name (workspace_inspect) or its noun (inspect). The JSON
object carries "action" and the action's arguments in snake_case. Use - for
the JSON to read it from stdin.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw := []byte("{}")
			if len(args) == 2 {
				raw = []byte(args[1])
				if args[1] == "-" {
					var err error
					if raw, err = readAll(a.io.In); err != nil {
						a.emit(envelope.Fail("call", envelope.Errorf(envelope.InvalidInput, "cannot read the request from stdin: %v", err)))
						return nil
					}
				}
			}
			var head struct {
				Action string `json:"action"`
			}
			if err := dispatch.DecodeLoose(raw, &head); err != nil {
				a.emit(envelope.Fail(args[0], err))
				return nil
			}
			if head.Action == "" {
				a.emit(envelope.Fail(args[0], envelope.Errorf(envelope.InvalidInput, `the request has no "action": pass {"action":"...", ...}`)))
				return nil
			}
			row, err := dispatch.Find(args[0], head.Action)
			if err != nil {
				a.emit(envelope.Fail(args[0]+"."+head.Action, err))
				return nil
			}
			req, err := row.Decode(raw)
			if err != nil {
				a.emit(envelope.Fail(row.Operation(), err))
				return nil
			}
			// The caller wrote JSON: messages name its arguments, not flags.
			cmd.SetContext(dispatch.WithVocabulary(cmd.Context(), dispatch.Arguments))
			a.dispatch(cmd, row, req)
			return nil
		},
	}
}
