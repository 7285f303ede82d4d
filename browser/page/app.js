// The room as Hydrogen's view SDK shows it: log in with a password, sync, mount
// the room's timeline. The driver (drive.mjs) calls window.openRoom and reads the DOM.
import {
    Client,
    createNavigation,
    createRouter,
    FeatureSet,
    LoadStatus,
    Platform,
    RoomViewModel,
    TimelineView,
    viewClassForTile,
} from "hydrogen-view-sdk";

const assetPaths = {
    downloadSandbox: "/assets/download-sandbox.html",
    worker: "/assets/main.js",
    olm: {wasm: "/olm/olm.wasm", legacyBundle: "/olm/olm_legacy.js", wasmBundle: "/olm/olm.js"},
    // Authenticated media (Synapse serves files only to a logged-in user) goes through it.
    serviceWorker: "/sw.js",
};

async function openRoom({homeserver, user, password, room}) {
    const app = document.querySelector("#app");
    const platform = new Platform({container: app, assetPaths, config: {}, options: {development: false}});
    const navigation = createNavigation();
    platform.setNavigation(navigation);
    await platform.init();
    const urlRouter = createRouter({navigation, history: platform.history});
    urlRouter.attach();
    const client = new Client(platform);
    const login = await client.queryLogin(homeserver).result;
    await client.startWithLogin(login.password(user, password));
    await client.loadStatus.waitFor((s) =>
        s === LoadStatus.Ready || s === LoadStatus.Error || s === LoadStatus.LoginFailed).promise;
    if (client.loginFailure) {
        throw new Error(`login failed: ${client.loginFailure}`);
    }
    if (client.loadError) {
        throw new Error(`load failed: ${client.loadError.message}`);
    }
    const {session} = client;
    const joined = session.rooms.get(room);
    if (!joined) {
        throw new Error(`${user} has not joined ${room}; rooms: ${[...session.rooms.keys()]}`);
    }
    const features = await FeatureSet.load(platform.settingsStorage);
    const vm = new RoomViewModel({room: joined, ownUserId: session.userId, platform, urlRouter, navigation, features});
    await vm.load();
    const view = new TimelineView(vm.timelineViewModel, viewClassForTile);
    app.appendChild(view.mount());
    return session.userId;
}

window.openRoom = openRoom;
