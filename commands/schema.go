package commands

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/schema"
)

func (a *app) schemaCmd() *cobra.Command {
	var format string
	var all bool
	cmd := &cobra.Command{
		Use:   "schema [TOOL] [--format jsonschema|openai] [--all]",
		Short: "Print the envelope schema and the tools' input schemas (JSON Schema or OpenAI functions)",
		Long: `Print the agentic-workspace/v1 envelope schema and each tool's input schema,
generated from the request types the engine decodes (the schemas aw mcp
offers), so a harness can register aw's tools for function calling:

  aw schema -o json | jq '.data.tools'
  aw schema workspace_edit --format openai -o json | jq '.data.tools[0]'

The tools and actions are those the workspace offers (a tool whose setting
is off, or an action above the --tier cap, is left out; plan is not offered
in Auto mode); --all lists every tool and action.
data.tools[].inputSchema takes an "action" enum and the union of the
actions' arguments; data.tools[].actionSchemas has each action's own schema
with its required fields. --format openai prints the tools as OpenAI
function definitions ({"type":"function","function":{name, description,
parameters}}).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "jsonschema" && format != "openai" {
				a.emit(envelope.Fail("schema.show", envelope.Errorf(envelope.InvalidInput, "--format %q is not jsonschema or openai", format)))
				return nil
			}
			var tools []*schema.Tool
			which := "every tool and action (--all)"
			if all {
				tools = schema.All()
			} else {
				ws, err := a.openWorkspace()
				if err != nil {
					a.emit(envelope.Fail("schema.show", err))
					return nil
				}
				tools = schema.Registered(ws)
				which = fmt.Sprintf("the tools this workspace offers at --tier %s", ws.Tier)
			}
			if len(args) == 1 {
				var picked []*schema.Tool
				for _, t := range tools {
					if t.Name == args[0] || t.Noun == args[0] {
						picked = append(picked, t)
					}
				}
				if len(picked) == 0 {
					a.emit(envelope.Fail("schema.show", unknownTool(args[0], tools, all)))
					return nil
				}
				tools = picked
			}
			data := map[string]any{"format": format, "envelope": schema.Envelope()}
			if format == "openai" {
				var fns []any
				for _, t := range tools {
					fns = append(fns, schema.OpenAI(t))
				}
				data["tools"] = fns
			} else {
				data["tools"] = tools
			}
			env := envelope.New("schema.show", fmt.Sprintf("%d tool schemas (%s) for %s, generated from aw's request types; the envelope schema is data.envelope.",
				len(tools), strings.Join(schema.Names(tools), ", "), which), data)
			env.Retention.Importance = envelope.Low
			env.Omit("data.tools", "data.envelope")
			a.emit(env)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonschema", "jsonschema or openai")
	cmd.Flags().BoolVar(&all, "all", false, "every tool and action, whatever the settings and tier")
	return cmd
}

// unknownTool says whether name is no tool at all or one the settings or
// tier do not offer here.
func unknownTool(name string, offered []*schema.Tool, all bool) error {
	for _, t := range schema.All() {
		if t.Name == name || t.Noun == name {
			if !all {
				return envelope.Errorf(envelope.ToolDisabled, "%s is not offered by this workspace (settings or --tier); `aw inspect capabilities` shows what is, and --all prints every schema", t.Name).With("tool", t.Name)
			}
		}
	}
	return envelope.Errorf(envelope.InvalidInput, "unknown tool %q: the tools are %s", name, strings.Join(dispatch.ToolNames(), ", ")).With("tool", name)
}
