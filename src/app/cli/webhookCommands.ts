// The operator commands of an organization's webhook endpoints and their deliveries.
import { intOpt, type CommandContext, type Commands } from "./commandContext.js";

export function webhookCommands({ values, rest, ops, print, printTable }: CommandContext): Commands {
  return {
    "webhook list": async () => {
      printTable("webhook list", await ops.listWebhooks(rest[0]!));
      return 0;
    },
    "webhook create": async () => {
      if (!values.events) throw new Error("--events is required: a comma-separated list such as assisted.completed");
      print(
        await ops.createWebhook(rest[0]!, {
          url: rest[1]!,
          events: values.events
            .split(",")
            .map((e) => e.trim())
            .filter(Boolean),
          description: values.description,
        }),
      );
      return 0;
    },
    "webhook delete": async () => {
      print(await ops.deleteWebhook(rest[0]!, rest[1]!));
      return 0;
    },
    "webhook rotate-secret": async () => {
      print(await ops.rotateWebhookSecret(rest[0]!, rest[1]!));
      return 0;
    },
    "webhook test": async () => {
      print(await ops.testWebhook(rest[0]!, rest[1]!));
      return 0;
    },
    "webhook deliveries": async () => {
      print(await ops.webhookDeliveries(rest[0]!, rest[1]!, intOpt(values.limit, "limit")));
      return 0;
    },
    "webhook redeliver": async () => {
      print(await ops.redeliverWebhook(rest[0]!, rest[1]!, rest[2]!));
      return 0;
    },
  };
}
