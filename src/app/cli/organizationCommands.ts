// The operator commands of organizations, their prices, keys, credits and members, balances and refunds.
import { intOpt, onOff, type CommandContext, type Commands } from "./commandContext.js";

export function organizationCommands({
  values,
  sub,
  rest,
  ops,
  config,
  print,
  printTable,
  limits,
  billingMode,
}: CommandContext): Commands {
  return {
    "org create": async () => {
      if (!values.name) throw new Error("--name is required");
      print(
        await ops.createOrganization({
          name: values.name,
          billingMode: billingMode() ?? "live",
          limits: limits(),
          hideBalance: values["hide-balance"],
          billingEnabled: values["billing-off"] ? false : undefined,
          trialQueries: intOpt(values["trial-queries"], "trial-queries"),
        }),
      );
      return 0;
    },
    "org list": async () => {
      printTable(
        "org list",
        await ops.listOrganizations({
          q: rest[0],
          limit: intOpt(values.limit, "limit") ?? 50,
          offset: intOpt(values.offset, "offset") ?? 0,
        }),
      );
      return 0;
    },
    "org show": async () => {
      print(await ops.getOrganization(rest[0] ?? ""));
      return 0;
    },
    "org limits": async () => {
      print(await ops.changeLimits(rest[0] ?? "", limits()));
      return 0;
    },
    "org billing": async () => {
      print(
        await ops.changeBillingSettings(rest[0] ?? "", {
          billingMode: billingMode(),
          trialQueries: intOpt(values["trial-queries"], "trial-queries"),
          billingEnabled: onOff(values.billing, "on", "off", "billing"),
          hideBalance: onOff(values.balance, "hidden", "shown", "balance"),
        }),
      );
      return 0;
    },
    "price set": async () => {
      print(await ops.setPrice(rest[0] ?? "", rest[1] ?? "", rest[2] ?? ""));
      return 0;
    },
    "price clear": async () => {
      print(await ops.setPrice(rest[0] ?? "", rest[1] ?? "", null));
      return 0;
    },
    "price list": async () => {
      printTable("price list", await ops.prices(rest[0] ?? ""));
      return 0;
    },
    "key show": async () => {
      print(await ops.getKey(rest[0] ?? ""));
      return 0;
    },
    "org suspend": async () => {
      print(await ops.setSuspended(rest[0] ?? "", true, values.reason));
      return 0;
    },
    "org resume": async () => {
      print(await ops.setSuspended(rest[0] ?? "", false));
      return 0;
    },
    "credits add": async () => {
      print({ balance: (await ops.addCredits(rest[0] ?? "", rest[1] ?? "", values.reference)).balance });
      return 0;
    },
    "key create": async () => {
      if (values.mode !== "live" && values.mode !== "test") throw new Error("--mode live|test is required");
      print(
        await ops.createKey(rest[0] ?? "", {
          mode: values.mode,
          name: values.name,
          collections: values.collections
            ?.split(",")
            .map((s) => s.trim())
            .filter(Boolean),
          spendingCap: values["spending-cap"],
        }),
      );
      return 0;
    },
    "key revoke": async () => {
      print(await ops.revokeKey(rest[0] ?? ""));
      return 0;
    },
    "key cap": async () => {
      if (Boolean(values.clear) === (rest[1] !== undefined))
        throw new Error("usage: key cap KEY_ID AMOUNT, or key cap KEY_ID --clear");
      print(await ops.setSpendingCap(rest[0] ?? "", values.clear ? null : rest[1]!));
      return 0;
    },
    "member invite": async () => {
      const role = values.role ?? "member";
      if (role !== "owner" && role !== "member") throw new Error("--role must be owner or member");
      // a server builds the link from its own address; the local store from the configured one
      print(
        await ops.inviteMember(
          rest[0] ?? "",
          { email: rest[1] ?? "", role },
          config?.publicUrl ?? `http://${config?.host}:${config?.port}`,
        ),
      );
      return 0;
    },
    "member list": async () => {
      printTable("member list", await ops.members(rest[0] ?? ""));
      return 0;
    },
    "member remove": async () => {
      print(await ops.removeMember(rest[0] ?? "", rest[1] ?? ""));
      return 0;
    },
    "member cancel-invite": async () => {
      print(await ops.cancelInvite(rest[0] ?? "", rest[1] ?? ""));
      return 0;
    },
    balance: async () => {
      print(await ops.balance(sub ?? ""));
      return 0;
    },
    refund: async () => {
      print({
        balance: (await ops.issueRefund(sub ?? "", rest[0] ?? "", values.reference, values["query-id"])).balance,
      });
      return 0;
    },
  };
}
