package commands

import "github.com/spf13/cobra"

func (a *app) inspectCmd() *cobra.Command { return &cobra.Command{Use: "inspect"} }
