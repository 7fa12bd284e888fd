import RelayApp

/// The adapter and the two registrations (application, advertisement).
extension PeripheralSession {
    mutating func adapterChanged(to state: AdapterState, info: AdapterInfo?) -> [PeripheralAction] {
        guard state != adapter || info != adapterInfo else { return [] }
        let wasOn = isPoweredOn
        let wasAdvertising = isAdvertising
        setAdapter(state, info: info)
        var actions: [PeripheralAction] = [.report(.state(state, adapter: info))]
        if state == .poweredOn {
            registrations.releasedByBlueZ = false
            return actions + reconcile()
        }
        // Paused: advertising stops, links are gone, queued notifications cannot be delivered.
        // A renewal's late answer is then taken back (`advertisementRegistered`), and nothing is
        // held for centrals that are gone.
        registrations.renewal = nil
        registrations.heldByCentrals = nil
        let lostBlueZ = state != .poweredOff
        if registrations.advertisement == .active {
            if !lostBlueZ { actions.append(.unregisterAdvertisement) }
            if wasOn, wasAdvertising { actions.append(.report(.stopped(lostBlueZ ? .unavailable : .poweredOff))) }
            registrations.advertisement = .absent
        } else if case .pending = registrations.advertisement, lostBlueZ {
            registrations.advertisement = .absent
        }
        if lostBlueZ {
            // bluetoothd forgets every registration when it (or the adapter) goes away.
            registrations.application = .absent
        }
        for address in centrals.keys.sorted() {
            actions += disconnect(address, reason: "Bluetooth \(state.phrase)")
        }
        subscriptions.notifyStopped()
        // Protocol-2 sessions wait for their centrals' next hello (a resume).
        subscriptions.sessionNotifyStopped()
        sending.dropSessionCounters()
        // (Every central was reported disconnected above; no unsubscribed lines on top.)
        _ = sessionNotifyStopped()
        actions += abandonOutbox(because: .bluetooth(state))
        return actions
    }

    mutating func applicationRegistered(_ ticket: RegistrationTicket) -> [PeripheralAction] {
        guard registrations.application == .pending(ticket) else { return [] }
        registrations.application = .active
        var actions: [PeripheralAction] = [.report(.registered)]
        // The advertisement's reply came first: advertising starts now.
        if isAdvertising { actions.append(.report(.advertising(name: settings.name.text))) }
        return actions + reconcile()
    }

    mutating func applicationFailed(_ ticket: RegistrationTicket, _ failure: RegistrationFailure) -> [PeripheralAction]
    {
        guard registrations.application == .pending(ticket) else { return [] }
        // Refused by the bus policy: that is the adapter's state (it says why and the fix).
        if failure.isAccessDenied { return adapterChanged(to: .unavailable(.accessDenied), info: adapterInfo) }
        registrations.application = .absent
        registrations.wantsApplication = false
        registrations.wantsAdvertising = false
        var actions: [PeripheralAction] = [.report(.error(.registration(failure), from: nil))]
        // Never advertise a service that is not there: take back an advertisement already
        // registered (one still pending is taken back when its reply comes).
        if registrations.advertisement == .active {
            registrations.advertisement = .absent
            actions.insert(.unregisterAdvertisement, at: 0)
        }
        return actions
    }

    mutating func advertisementRegistered(_ ticket: RegistrationTicket) -> [PeripheralAction] {
        if registrations.renewal == ticket {
            // Renewed after a connection: advertising went on. Stopped and started again meanwhile
            // (`reconcile` waited for this answer): it is the advertisement asked for. Stopped or
            // paused: taken back.
            registrations.renewal = nil
            guard registrations.wantsAdvertising, isPoweredOn else {
                if registrations.advertisement == .active { return [] }
                return [.unregisterAdvertisement]
            }
            guard registrations.advertisement == .absent else { return [] }
            registrations.advertisement = .active
            return isAdvertising ? [.report(.advertising(name: settings.name.text))] : []
        }
        guard registrations.advertisement == .pending(ticket) else { return [] }
        registrations.advertisement = .active
        if registrations.wantsAdvertising && isPoweredOn {
            // Reported once the service is registered too (`applicationRegistered`); after it was
            // held, said again.
            registrations.heldByCentrals = nil
            return isAdvertising ? [.report(.advertising(name: settings.name.text))] : []
        }
        // Stopped, powered off or the service failed while the request was on its way: take it back.
        registrations.advertisement = .absent
        return [.unregisterAdvertisement]
    }

    mutating func advertisementFailed(
        _ ticket: RegistrationTicket, _ failure: RegistrationFailure
    ) -> [PeripheralAction] {
        let renewal = registrations.renewal == ticket
        if renewal {
            registrations.renewal = nil
            // Stopped (and maybe started again: `reconcile` waited for this answer) or paused
            // meanwhile.
            guard registrations.advertisement == .active else { return reconcile() }
        } else {
            guard registrations.advertisement == .pending(ticket) else { return [] }
        }
        registrations.advertisement = .absent
        if renewal || registrations.heldByCentrals != nil, registrations.wantsAdvertising {
            guard !centrals.isEmpty else {
                // Every central left while the answer was on its way: ask once more, as if new.
                registrations.heldByCentrals = nil
                return reconcile()
            }
            // Refused while centrals are connected: the controller cannot advertise then. Said
            // once; tried again when one leaves.
            let first = registrations.heldByCentrals == nil
            registrations.heldByCentrals = centrals.count
            guard first else { return [] }
            return [.report(.advertisingHeld(centrals: centrals.count))]
        }
        registrations.wantsAdvertising = false
        registrations.heldByCentrals = nil
        return [.report(.error(.registration(failure), from: nil))]
    }

    /// A central connected: a controller stops advertising at a connection. Linux starts legacy
    /// advertising again by itself (within about 2 s), but extended advertising stays off until a
    /// link ends (`hci_le_ext_adv_term_evt`), so on an adapter that advertises extended the
    /// advertisement is registered again at once, and the rest of the room can join. One that
    /// cannot advertise while connected refuses it: that is said once (`advertisingHeld`), and
    /// advertising is asked for again whenever a central leaves. Not on a legacy adapter: there
    /// Linux restarts advertising for the instance a connection came through, and one registered
    /// anew under another number leaves it restarting an instance that is gone.
    mutating func advertiseAgainAfterConnection() -> [PeripheralAction] {
        guard adapterInfo?.extendedAdvertising == true, registrations.wantsAdvertising,
            registrations.advertisement == .active, registrations.renewal == nil, isPoweredOn
        else { return [] }
        // Advertising counts as on while its renewal is on its way (`renewal`).
        let ticket = makeTicket()
        registrations.renewal = ticket
        return [.renewAdvertisement(ticket, name: settings.name, interval: settings.advertisingInterval)]
    }

    /// A central left: advertising held for the connected centrals is asked for again.
    mutating func advertiseAgainAfterDisconnection() -> [PeripheralAction] {
        guard registrations.heldByCentrals != nil else { return [] }
        return reconcile()
    }

    mutating func advertisementReleased() -> [PeripheralAction] {
        guard registrations.advertisement != .absent else { return [] }
        let wasAdvertising = isAdvertising
        registrations.advertisement = .absent
        guard registrations.wantsAdvertising else { return [] }
        if isPoweredOn { registrations.releasedByBlueZ = true }
        return wasAdvertising ? [.report(.stopped(isPoweredOn ? .released : .poweredOff))] : []
    }

    /// Issues the registrations the wishes and the state call for. The application and the
    /// advertisement are requested together (they are independent in bluetoothd: one round trip
    /// instead of two at start-up); `advertising` is reported once both are registered.
    mutating func reconcile() -> [PeripheralAction] {
        guard isPoweredOn else { return [] }
        var actions: [PeripheralAction] = []
        if registrations.wantsApplication, registrations.application == .absent {
            let ticket = makeTicket()
            registrations.application = .pending(ticket)
            actions.append(.registerApplication(ticket))
        }
        // Not while a renewal is on its way: its answer decides (`advertisementRegistered`).
        if registrations.wantsAdvertising, !registrations.releasedByBlueZ, registrations.application != .absent,
            registrations.advertisement == .absent, registrations.renewal == nil
        {
            let ticket = makeTicket()
            registrations.advertisement = .pending(ticket)
            actions.append(.registerAdvertisement(ticket, name: settings.name, interval: settings.advertisingInterval))
        }
        if !registrations.wantsAdvertising { registrations.heldByCentrals = nil }
        if !registrations.wantsAdvertising, registrations.advertisement == .active {
            let wasAdvertising = isAdvertising
            registrations.advertisement = .absent
            actions.append(.unregisterAdvertisement)
            if wasAdvertising { actions.append(.report(.stopped(.command))) }
        }
        return actions
    }
}
