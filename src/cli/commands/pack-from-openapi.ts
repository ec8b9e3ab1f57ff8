// hcpx pack from-openapi <document> --id <id> [--out packs/<id>] [--force]
import { HcpxError } from "../../util/errors";

export interface FromOpenapiOptions {
  id: string;
  out?: string;
  baseUrl?: string;
  force?: boolean;
  json?: boolean;
  config?: string;
}

export async function run(document: string, opts: FromOpenapiOptions): Promise<number> {
  void document;
  void opts;
  throw new HcpxError({ code: "not_implemented", message: "pack from-openapi is being written" });
}
