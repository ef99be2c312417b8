//! A task's push notification configs at the agent: registering the console's own receiver, listing them, and
//! deleting the ones the console registered (its receiver stops routing them first).

use crate::app::ids::AgentId;
use crate::app::ids::TabId;
use crate::app::msg::Msg;
use crate::remote::error::classify;
use crate::tui::runtime::Runtime;

impl Runtime {
    pub(super) fn register_push(
        &mut self,
        tab: TabId,
        agent: AgentId,
        task_id: String,
        context_id: Option<String>,
    ) {
        let tx = self.tx.clone();
        let (Some(conn), Some(receiver)) = (self.client(agent), self.push.as_ref()) else {
            return;
        };
        let cfg = match receiver.config_for(agent, &task_id, context_id.as_deref()) {
            Ok(cfg) => cfg,
            Err(e) => {
                let _ = tx.send(Msg::PushConfigs {
                    tab,
                    result: Err(e),
                    what: "registered",
                });
                return;
            }
        };
        tokio::spawn(async move {
            let result = conn
                .client
                .create_push_config(&cfg)
                .await
                .map(|c| vec![c])
                .map_err(|e| classify(&e).message);
            let _ = tx.send(Msg::PushConfigs {
                tab,
                result,
                what: "registered",
            });
        });
    }

    pub(super) fn list_push(&mut self, tab: TabId, agent: AgentId, task_id: String) {
        self.call(agent, move |conn| async move {
            let req = a2a::ListTaskPushNotificationConfigsRequest {
                task_id,
                page_size: None,
                page_token: None,
                tenant: None,
            };
            let result = conn
                .client
                .list_push_configs(&req)
                .await
                .map(|r| r.configs)
                .map_err(|e| classify(&e).message);
            Some(Msg::PushConfigs {
                tab,
                result,
                what: "listed",
            })
        });
    }

    pub(super) fn delete_push(
        &mut self,
        tab: TabId,
        agent: AgentId,
        task_id: String,
        ids: Vec<String>,
    ) {
        let tx = self.tx.clone();
        let Some(conn) = self.client(agent) else {
            return;
        };
        if let Some(r) = self.push.as_ref() {
            r.unregister(&agent, &task_id);
        }
        tokio::spawn(async move {
            let mut result = Ok(Vec::new());
            for id in ids {
                let req = a2a::DeleteTaskPushNotificationConfigRequest {
                    task_id: task_id.clone(),
                    id,
                    tenant: None,
                };
                if let Err(e) = conn.client.delete_push_config(&req).await {
                    result = Err(classify(&e).message);
                    break;
                }
            }
            let _ = tx.send(Msg::PushConfigs {
                tab,
                result,
                what: "deleted",
            });
        });
    }
}
