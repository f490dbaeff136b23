// Command tables lists a Feltline server's tables through the Go code that
// protoc generates from protos/ (protos/go/build.sh builds and runs it).
//
//	tables TARGET TOKEN
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	feltlinev1 "feltline/v1"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: tables TARGET TOKEN")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := grpc.DialContext(ctx, os.Args[1], grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		fmt.Fprintf(os.Stderr, "tables: cannot reach %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	defer conn.Close()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+os.Args[2])
	tables := feltlinev1.NewTableServiceClient(conn)
	request := &feltlinev1.ListTablesRequest{}
	for {
		page, err := tables.ListTables(ctx, request)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tables: %v\n", err)
			os.Exit(1)
		}
		for _, table := range page.GetTables() {
			fmt.Printf("%s\t%s\t%s\t%d seats\n", table.GetTableId(), table.GetDisplayName(),
				table.GetConfig().GetRules().GetGame(), table.GetConfig().GetSeats())
		}
		if page.GetNextPageToken() == "" {
			return
		}
		request.PageToken = page.GetNextPageToken()
	}
}
